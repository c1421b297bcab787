import { splitPassages, splitPassagesToFit } from '../domain/passages.js';
import type { EmbeddedText } from '../store/documents.js';
import type { Embedder } from '../vector/embedder.js';

/**
 * Splits each text into passages that fit the embedder's window (when it has one: the model reads 256
 * tokens) and embeds every passage of every text in one call, which the model serves in token-capped batches.
 */
export async function embedTexts(embedder: Embedder, texts: string[]): Promise<EmbeddedText[]> {
  const { maxTokens, countTokens } = embedder;
  const window = maxTokens !== undefined && countTokens ? { maxTokens, count: (t: string[]) => countTokens.call(embedder, t) } : null;
  const split = await Promise.all(texts.map(async (text) => (window ? await splitPassagesToFit(text, window) : splitPassages(text)).map((p) => p.text)));
  const all = split.flat();
  const vectors = all.length ? await embedder.embed(all) : [];
  let at = 0;
  return split.map((passages) => ({ passages, vectors: vectors.slice(at, (at += passages.length)), embedder: embedder.id }));
}

/** A written document's passages as its indexes take them. */
export function indexable(labels: number[], embedded: EmbeddedText): Array<{ label: number; vector: Float32Array; text: string }> {
  return labels.map((label, i) => ({ label, vector: embedded.vectors[i]!, text: embedded.passages[i]! }));
}
