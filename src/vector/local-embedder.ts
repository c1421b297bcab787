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
  private readonly counts = new FeatureCounts();

  constructor(readonly dimensions = 384) {
    this.id = `local-hash-v1-${dimensions}`;
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    return texts.map((t) => this.embedOne(t));
  }

  /**
   * Features are `w:<word>`, `b:<word> <next word>` and `c:<trigram of "<word>">` (words of more than two
   * characters), each hashed as FNV-1a continued over its parts, so no feature's string is built: the
   * vectors are the ones hashing those strings gives, for a fraction of the allocation (issue 16).
   */
  embedOne(text: string): Float32Array {
    const counts = this.counts.reset();
    const words = tokenize(text);
    for (let i = 0; i < words.length; i++) {
      const w = words[i]!;
      counts.add(fnv1a(w, WORD) >>> 0, 1);
      if (i + 1 < words.length) counts.add(fnv1a(words[i + 1]!, fnvStep(fnv1a(w, BIGRAM), SPACE)) >>> 0, 0.7);
      if (w.length > 2) {
        // The trigrams of `<${w}>`: position p of it is '<' at 0, '>' at the end, w[p - 1] between.
        const end = w.length + 1;
        const at = (p: number) => (p === 0 ? OPEN : p === end ? CLOSE : w.charCodeAt(p - 1));
        for (let j = 0; j + 2 <= end; j++) counts.add(fnvStep(fnvStep(fnvStep(TRIGRAM, at(j)), at(j + 1)), at(j + 2)) >>> 0, 0.25);
      }
    }
    const v = new Float32Array(this.dimensions);
    counts.forEach((h, tf) => {
      const bucket = (h >>> 1) % this.dimensions;
      const sign = h & 1 ? 1 : -1;
      v[bucket]! += sign * (1 + Math.log(tf));
    });
    return normalise(v);
  }
}

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
const OPEN = '<'.charCodeAt(0);
const CLOSE = '>'.charCodeAt(0);
const SPACE = ' '.charCodeAt(0);

/** 32-bit FNV-1a over UTF-16 code units, from `h` (a state this returns, or the offset basis): fast, stable across runs and platforms. */
function fnv1a(text: string, h = FNV_OFFSET): number {
  for (let i = 0; i < text.length; i++) h = fnvStep(h, text.charCodeAt(i));
  return h;
}

function fnvStep(h: number, code: number): number {
  return Math.imul(h ^ code, FNV_PRIME);
}

/** The hash states after each feature kind's prefix. */
const WORD = fnv1a('w:');
const BIGRAM = fnv1a('b:');
const TRIGRAM = fnv1a('c:');

/**
 * A text's feature weights by hash, in the order each hash first came (the order the weights are added to
 * the vector, so collisions in a bucket sum as they always did): an open-addressing table in typed arrays,
 * reused from text to text, where a Map per text allocated as much again as the features' strings.
 */
class FeatureCounts {
  private hashes = new Uint32Array(256);
  private weights = new Float64Array(256);
  /** The generation a slot was last used in: slots of an older one are empty, so a reset clears nothing. */
  private used = new Uint32Array(256);
  private order = new Int32Array(128);
  private size = 0;
  private generation = 0;

  reset(): this {
    this.size = 0;
    if (++this.generation === 0xffffffff) {
      this.used.fill(0);
      this.generation = 1;
    }
    return this;
  }

  add(hash: number, weight: number): void {
    if (this.size * 2 >= this.hashes.length) this.grow();
    const slot = this.slotOf(hash);
    if (this.used[slot] === this.generation) {
      this.weights[slot]! += weight;
      return;
    }
    this.used[slot] = this.generation;
    this.hashes[slot] = hash;
    this.weights[slot] = weight;
    this.order[this.size++] = slot;
  }

  forEach(each: (hash: number, weight: number) => void): void {
    for (let i = 0; i < this.size; i++) {
      const slot = this.order[i]!;
      each(this.hashes[slot]!, this.weights[slot]!);
    }
  }

  /** The hash's slot, or the empty one where it goes (linear probing; the table is at most half full). */
  private slotOf(hash: number): number {
    const mask = this.hashes.length - 1;
    let slot = Math.imul(hash, 0x9e3779b1) >>> 0 & mask;
    while (this.used[slot] === this.generation && this.hashes[slot] !== hash) slot = (slot + 1) & mask;
    return slot;
  }

  private grow(): void {
    const { hashes, weights, order, size } = this;
    const capacity = hashes.length * 2;
    this.hashes = new Uint32Array(capacity);
    this.weights = new Float64Array(capacity);
    this.used = new Uint32Array(capacity);
    this.order = new Int32Array(capacity / 2);
    this.generation = 1;
    this.size = 0;
    for (let i = 0; i < size; i++) {
      const slot = this.slotOf(hashes[order[i]!]!);
      this.used[slot] = 1;
      this.hashes[slot] = hashes[order[i]!]!;
      this.weights[slot] = weights[order[i]!]!;
      this.order[this.size++] = slot;
    }
  }
}
