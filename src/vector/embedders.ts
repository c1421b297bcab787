import type { EmbedderConfig } from '../config.js';
import type { Embedder } from './embedder.js';
import { LocalEmbedder } from './local-embedder.js';
import { OpenAiEmbedder } from './openai-embedder.js';

/** The node's embedder: the OpenAI-compatible provider at `EMBEDDINGS_URL`, else the local one (384 dimensions). */
export function createEmbedder(config: EmbedderConfig): Embedder {
  if (config.kind === 'local') return new LocalEmbedder(384);
  return new OpenAiEmbedder({ url: config.url, key: config.key, model: config.model, dimensions: config.dimensions });
}
