import type { Embedder } from './embedder.js';
import { LocalEmbedder } from './local-embedder.js';
import { OpenAiEmbedder } from './openai-embedder.js';

/** The node's embedder: the OpenAI-compatible provider at `EMBEDDINGS_URL`, else the local one (384 dimensions). */
export function createEmbedder(env: { EMBEDDINGS_URL?: string | undefined; EMBEDDINGS_KEY?: string | undefined; EMBEDDINGS_MODEL?: string | undefined; EMBEDDINGS_DIMENSIONS?: number | undefined }): Embedder {
  if (!env.EMBEDDINGS_URL) return new LocalEmbedder(384);
  return new OpenAiEmbedder({
    url: env.EMBEDDINGS_URL,
    key: env.EMBEDDINGS_KEY,
    model: env.EMBEDDINGS_MODEL ?? 'text-embedding-3-small',
    dimensions: env.EMBEDDINGS_DIMENSIONS ?? 1536,
  });
}
