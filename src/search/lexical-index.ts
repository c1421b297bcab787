import { idf, poolStats, termScore, type PoolStats } from '../domain/fusion.js';
import { tokenize } from '../domain/text.js';
import { MinHeap } from '../domain/top-n.js';
import { Postings } from './postings.js';

/**
 * BM25 values of the passages that hold a query term, with the pool's stats for z-scoring. Values sit in a
 * dense array by label (one add per posting, no hashing), and `touched` lists the labels that have one.
 */
export class LexicalScores {
  constructor(
    private readonly values: Float64Array,
    /** The idf mass of the query words each passage holds, by label. */
    private readonly matched: Float64Array,
    /** The idf mass of every query word (those no passage holds included). */
    private readonly queryMass: number,
    /** Labels with a value, each once, in no order. */
    readonly touched: number[],
    /** Mean and spread over every live passage (those without a query term count as 0). */
    readonly stats: PoolStats,
  ) {}

  /** The BM25 value of a passage; 0 when it holds no query term. */
  get(label: number): number {
    return label < this.values.length ? this.values[label]! : 0;
  }

  /** The share (0-1) of the query's idf mass among the passage's words. */
  coverage(label: number): number {
    return label < this.matched.length && this.queryMass > 0 ? this.matched[label]! / this.queryMass : 0;
  }

  /** The `n` best labels that `accept` lets through, best first (ties by label), without sorting them all. */
  top(n: number, accept: (label: number) => boolean = () => true): Array<[label: number, value: number]> {
    const heap = new MinHeap(n);
    for (const label of this.touched) {
      const value = this.values[label]!;
      if (heap.wouldTake(value, label) && accept(label)) heap.offer(value, label);
    }
    return heap.sorted();
  }
}

/** Hard-deleted share of indexed passages above which postings are compacted. */
const COMPACT_RATIO = 0.25;

/**
 * One owner's inverted index over its passages' words (the project's tokenizer, src/domain/text.ts), ranked
 * by Okapi BM25. It holds every passage whatever embedder made its vector, so an owner whose vectors are being
 * re-embedded is still found by its words. Soft deletes and readers are filters applied by the caller (a
 * restore is instant); a hard delete drops the label, and postings are compacted once enough are dead.
 * Document frequencies count dead labels until then, a bounded error that compaction removes.
 */
export class LexicalIndex {
  private readonly terms = new Map<string, Postings>();
  /** Passage length in terms by label; 0 for a label never added or removed. */
  private lengths = new Uint16Array(64);
  /** The document of each label (a passage's words are found before its document is known to be readable). */
  private readonly docIds: Array<string | undefined> = [];
  private live = 0;
  private dead = 0;
  private totalLength = 0;
  private postingBytes = 0;

  get size(): number {
    return this.live;
  }

  /** Bytes held in memory, roughly: postings, the length and document tables, and ~80 B per distinct term. */
  get residentBytes(): number {
    return this.postingBytes + this.lengths.byteLength + this.docIds.length * 8 + this.terms.size * 80;
  }

  docOf(label: number): string | undefined {
    return this.has(label) ? this.docIds[label] : undefined;
  }

  has(label: number): boolean {
    return (this.lengths[label] ?? 0) > 0;
  }

  /** Indexes a passage's text under its label (labels are never reused; adding one twice is a no-op). */
  add(label: number, docId: string, text: string): void {
    if (this.has(label)) return;
    const counts = new Map<string, number>();
    for (const term of tokenize(text)) counts.set(term, (counts.get(term) ?? 0) + 1);
    let length = 0;
    for (const [term, count] of counts) {
      let postings = this.terms.get(term);
      if (!postings) this.terms.set(term, (postings = new Postings()));
      const before = postings.bytes;
      postings.add(label, count);
      this.postingBytes += postings.bytes - before;
      length += count;
    }
    this.grow(label);
    while (this.docIds.length <= label) this.docIds.push(undefined);
    this.docIds[label] = docId;
    // A passage of no words still counts in the pool (it scores 0); length 1 marks it present.
    this.lengths[label] = Math.max(1, Math.min(length, 0xffff));
    this.live++;
    this.totalLength += this.lengths[label]!;
  }

  /** Forgets a passage for good (hard delete). */
  remove(label: number): void {
    const length = this.lengths[label] ?? 0;
    if (length === 0) return;
    this.lengths[label] = 0;
    this.docIds[label] = undefined;
    this.live--;
    this.dead++;
    this.totalLength -= length;
    if (this.dead > COMPACT_RATIO * (this.live + this.dead)) this.compact();
  }

  /** BM25 of every passage holding a query word, and the pool's stats. */
  score(query: string): LexicalScores {
    const values = new Float64Array(this.lengths.length);
    const matched = new Float64Array(this.lengths.length);
    const touched: number[] = [];
    const meanLength = this.live ? this.totalLength / this.live : 1;
    let queryMass = 0;
    for (const term of new Set(tokenize(query))) {
      const postings = this.terms.get(term);
      const termIdf = idf(this.live + this.dead, postings?.size ?? 0);
      queryMass += termIdf;
      if (!postings) continue;
      for (let i = 0; i < postings.size; i++) {
        const label = postings.labelAt(i);
        const length = this.lengths[label]!;
        if (length === 0) continue;
        if (values[label] === 0) touched.push(label);
        values[label]! += termScore(termIdf, postings.countAt(i), length, meanLength);
        matched[label]! += termIdf;
      }
    }
    let sum = 0;
    let sumOfSquares = 0;
    for (const label of touched) {
      sum += values[label]!;
      sumOfSquares += values[label]! * values[label]!;
    }
    return new LexicalScores(values, matched, queryMass, touched, poolStats(this.live, sum, sumOfSquares));
  }

  private grow(label: number): void {
    if (label < this.lengths.length) return;
    let size = this.lengths.length;
    while (size <= label) size *= 2;
    const lengths = new Uint16Array(size);
    lengths.set(this.lengths);
    this.lengths = lengths;
  }

  private compact(): void {
    this.postingBytes = 0;
    for (const [term, postings] of this.terms) {
      postings.retain((label) => this.lengths[label]! > 0);
      if (postings.size === 0) this.terms.delete(term);
      else this.postingBytes += postings.bytes;
    }
    this.dead = 0;
  }
}
