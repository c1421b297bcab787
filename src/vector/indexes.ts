import { createHash } from 'node:crypto';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { passageOrigin, type EmbedderOrigin } from '../domain/reembed.js';
import type { Scope } from '../domain/scope.js';
import { LexicalIndex } from '../search/lexical-index.js';
import { toFloat32, type DocumentStore } from '../store/documents.js';
import { privateDir } from '../store/private-files.js';
import { HNSW_DEFAULTS, type HnswParams } from './hnsw/protocol.js';
import { VectorWorker } from './hnsw/vector-worker.js';
import { OwnerVectorIndex, type VectorIndexOptions } from './owner-index.js';

/** What a node sets for every owner's index; `m` and `efConstruction` default to HNSW_DEFAULTS. */
export type IndexSettings = Omit<VectorIndexOptions, 'filePath' | 'embedderId' | 'dims' | 'worker' | keyof HnswParams> & Partial<HnswParams>;

/** An owner's two search indexes over the same passages, opened together from one scan of LMDB. */
export interface OwnerIndexes {
  vector: OwnerVectorIndex;
  lexical: LexicalIndex;
}

/**
 * Opens owners' vector and lexical indexes: each is filled from LMDB (plus its persisted hnswlib file under
 * `DATA_DIR/vectors`, when there is one). Whoever opens an index owns it: the owner's actor keeps it
 * while it is resident, and closes it (writing the changed file back) when it is evicted or at shutdown.
 */
export class VectorIndexes {
  private readonly dir: string;
  /** Whose passages an index holds; the others are foreign (re-embedding uses the same rule). */
  readonly origin: EmbedderOrigin;
  /** Where every large owner's hnswlib index lives: one thread for the node, started on first use. */
  private readonly worker = new VectorWorker();

  constructor(
    private readonly docs: DocumentStore,
    private readonly embedder: { id: string; dimensions: number },
    dataDir: string,
    private readonly settings: IndexSettings,
    /** Whether passages stored without an embedder id are this embedder's (false for the local model: it came later). */
    ownsUnlabeled = true,
  ) {
    this.dir = join(dataDir, 'vectors');
    privateDir(this.dir);
    this.origin = { id: embedder.id, ownsUnlabeled };
  }

  /** At or below this many passages an owner's vector index searches exactly, with no hnswlib index. */
  get exactMax(): number {
    return this.settings.exactMax;
  }

  /** New indexes holding the owner's stored passages; an hnswlib index is loaded or built in the background. */
  async open(scope: Scope): Promise<OwnerIndexes> {
    const index = new OwnerVectorIndex({
      ...HNSW_DEFAULTS,
      ...this.settings,
      dims: this.embedder.dimensions,
      embedderId: this.embedder.id,
      filePath: this.filePath(scope),
      worker: this.worker,
    });
    const lexical = new LexicalIndex();
    await fillIndex(this.docs, scope, index, this.origin, undefined, lexical);
    index.maybeBuild();
    return { vector: index, lexical };
  }

  /**
   * Removes the owner's index files (the hnswlib file, its meta and a checkpoint left half-written); call
   * once no index of the owner is open. Returns how many files there were.
   */
  removeFiles(scope: Scope): number {
    const base = this.filePath(scope);
    let removed = 0;
    for (const file of [`${base}.hnsw`, `${base}.json`, `${base}.hnsw.tmp`, `${base}.json.tmp`]) {
      if (!existsSync(file)) continue;
      rmSync(file, { force: true });
      removed++;
    }
    return removed;
  }

  /** Where the owner's files live: a digest of its scope, so the file names carry no owner id. */
  private filePath(scope: Scope): string {
    const key = JSON.stringify([scope.tenant, scope.partition, scope.entityId]);
    return join(this.dir, createHash('sha256').update(key).digest('hex').slice(0, 32));
  }

  /** Stops the vector worker, once every owner's index was closed (closing writes their files). */
  close(): Promise<void> {
    return this.worker.close();
  }
}

/**
 * Fills a fresh index (and the lexical index, when given) with the owner's documents and passages from the
 * store's chunked scans. Writes that commit meanwhile are applied by the owner's actor once the fill has
 * finished. Passages another embedder made are left out of the vector index and counted in
 * `index.foreign`, never mixed in; the lexical index holds every passage.
 */
export async function fillIndex(
  docs: DocumentStore,
  scope: Scope,
  index: OwnerVectorIndex,
  embedder: EmbedderOrigin,
  chunk?: number,
  lexical?: LexicalIndex,
): Promise<void> {
  const passagesOf = new Map<string, Array<{ label: number; vector: Float32Array }>>();
  const foreign = new Map<string, number>();
  await docs.scanPassages(scope, (label, passage) => {
    lexical?.add(label, passage.doc_id, passage.text);
    const madeBy = passageOrigin(passage.embedder, embedder);
    if (madeBy !== embedder.id) {
      foreign.set(madeBy, (foreign.get(madeBy) ?? 0) + 1);
      return;
    }
    let list = passagesOf.get(passage.doc_id);
    if (!list) passagesOf.set(passage.doc_id, (list = []));
    list.push({ label, vector: toFloat32(passage.vector) });
  }, chunk);
  await docs.scanDocuments(scope, (doc) => {
    index.putDoc(doc.doc_id, { modality: doc.modality, readers: doc.readers, deleted: doc.deleted_at !== null }, passagesOf.get(doc.doc_id) ?? []);
  }, chunk);
  if (foreign.size > 0) index.foreign = { passages: [...foreign.values()].reduce((a, b) => a + b, 0), embedders: [...foreign.keys()] };
}
