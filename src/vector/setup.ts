import type { DocumentWriteHook } from '../domain/documents.js';
import type { Logger } from '../log.js';
import { BlobCipher, loadMasterKey } from '../store/blobs.js';
import { DocumentStore } from '../store/documents.js';
import type { Store } from '../store/lmdb.js';
import type { Embedder } from './embedder.js';
import { VectorIndexes } from './indexes.js';
import { LocalEmbedder } from './local-embedder.js';
import { OpenAiEmbedder } from './openai-embedder.js';

export interface VectorSettings {
  /** At or below this many candidate passages search is exact (bench/search.ts measures the crossover). */
  exactMax: number;
  ef: number;
  m: number;
  efConstruction: number;
  maxOwners: number;
}

export const DEFAULT_VECTOR_SETTINGS: VectorSettings = { exactMax: 1000, ef: 400, m: 32, efConstruction: 200, maxOwners: 1000 };

export function createEmbedder(env: { EMBEDDINGS_URL?: string | undefined; EMBEDDINGS_KEY?: string | undefined; EMBEDDINGS_MODEL?: string | undefined; EMBEDDINGS_DIMENSIONS?: number | undefined }): Embedder {
  if (!env.EMBEDDINGS_URL) return new LocalEmbedder(384);
  return new OpenAiEmbedder({
    url: env.EMBEDDINGS_URL,
    key: env.EMBEDDINGS_KEY,
    model: env.EMBEDDINGS_MODEL ?? 'text-embedding-3-small',
    dimensions: env.EMBEDDINGS_DIMENSIONS ?? 1536,
  });
}

/** The document store, blob cipher and vector indexes of one node. */
export function createDocumentBackends(args: {
  store: Store;
  dataDir: string;
  encryptionKey: string | undefined;
  embedder: Embedder;
  hooks: DocumentWriteHook[];
  settings?: Partial<VectorSettings>;
  log: Logger;
}) {
  const settings = { ...DEFAULT_VECTOR_SETTINGS, ...args.settings };
  const docs = new DocumentStore(args.store, args.hooks);
  const cipher = new BlobCipher(loadMasterKey(args.encryptionKey, args.dataDir));
  const indexes = new VectorIndexes(
    docs,
    args.embedder,
    args.dataDir,
    { ...settings, onError: (err, what) => args.log.error({ err }, `vector index: ${what} failed`) },
    settings.maxOwners,
  );
  return { docs, cipher, indexes };
}
