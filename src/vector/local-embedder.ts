import type { Embedder } from './embedder.js';
import { normalise } from './embedder.js';
import { tokenize } from '../domain/text.js';

/**
 * The built-in embedder: feature hashing, in process, no network and no model. Word unigrams, word bigrams
 * and character trigrams of each word are hashed (signed) into `dimensions` buckets with sublinear term
 * weights, then L2-normalised.
 *
 * The similarity it gives is LEXICAL, not semantic: texts score close when they share words, word pairs or
 * word fragments (so "running"/"runner" and typos still overlap), but synonyms with no shared letters
 * ("car"/"automobile") do not. Configure `EMBEDDINGS_URL` for semantic search.
 */
export class LocalEmbedder implements Embedder {
  readonly id: string;

  constructor(readonly dimensions = 384) {
    this.id = `local-hash-v1-${dimensions}`;
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    return texts.map((t) => this.embedOne(t));
  }

  embedOne(text: string): Float32Array {
    const counts = new Map<number, number>();
    const add = (feature: string, weight: number) => {
      const h = fnv1a(feature);
      counts.set(h, (counts.get(h) ?? 0) + weight);
    };
    const words = tokenize(text);
    for (let i = 0; i < words.length; i++) {
      const w = words[i]!;
      add(`w:${w}`, 1);
      if (i + 1 < words.length) add(`b:${w} ${words[i + 1]}`, 0.7);
      const padded = `<${w}>`;
      if (padded.length > 4) for (let j = 0; j + 3 <= padded.length; j++) add(`c:${padded.slice(j, j + 3)}`, 0.25);
    }
    const v = new Float32Array(this.dimensions);
    for (const [h, tf] of counts) {
      const bucket = (h >>> 1) % this.dimensions;
      const sign = h & 1 ? 1 : -1;
      v[bucket]! += sign * (1 + Math.log(tf));
    }
    return normalise(v);
  }
}

/** 32-bit FNV-1a over UTF-16 code units: fast, stable across runs and platforms. */
function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
