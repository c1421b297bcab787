import type { Embedder } from '../vector/embedder.js';
import type { Metrics } from './metrics.js';

/** The embedder, its calls timed and the texts waiting on it counted (`engram_embed_*`); behaves exactly as `embedder`. */
export function measuredEmbedder(embedder: Embedder, metrics: Metrics): Embedder {
  const measure = (embed: (texts: readonly string[]) => Promise<Float32Array[]>) => (texts: readonly string[]) => {
    metrics.embedQueued.inc(texts.length);
    const stop = metrics.embedSeconds.startTimer();
    return embed(texts).finally(() => {
      stop();
      metrics.embedQueued.dec(texts.length);
    });
  };
  const background = embedder.embedInBackground?.bind(embedder);
  const countTokens = embedder.countTokens?.bind(embedder);
  return {
    id: embedder.id,
    dimensions: embedder.dimensions,
    embed: measure((texts) => embedder.embed(texts)),
    ...(embedder.maxTokens === undefined ? {} : { maxTokens: embedder.maxTokens }),
    ...(countTokens ? { countTokens } : {}),
    ...(background ? { embedInBackground: measure(background) } : {}),
  };
}
