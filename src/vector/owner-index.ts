import { existsSync, renameSync } from 'node:fs';
import hnswlib from 'hnswlib-node';
import type { HierarchicalNSW as Hnsw } from 'hnswlib-node';
import { canRead } from '../domain/access.js';
import { bestPerDocument, type PassageHit } from '../domain/search.js';
import type { Modality } from '../domain/documents.js';
import { poolStats, type PoolStats } from '../domain/fusion.js';
import { distanceTo, exactSearch, similaritySums } from './exact.js';
import { readIndexMeta, writeIndexMeta, type IndexFileMeta } from './index-meta.js';
import { buildHnswFile, type HnswParams } from './hnsw-build.js';

const { HierarchicalNSW } = hnswlib;

export interface VectorIndexOptions extends HnswParams {
  dims: number;
  embedderId: string;
  /** At or below this many candidate passages, search is exact (chosen by bench/search.ts). */
  exactMax: number;
  /** hnswlib search breadth; set again after every load because readIndex resets it to 10. */
  ef: number;
  /** Index file path without extension; `.hnsw` and `.json` are written beside it. */
  filePath: string;
  onError(error: unknown, what: string): void;
}

/** What a filter needs to know of a document. */
export interface IndexedDoc {
  modality: Modality;
  readers: string[] | null;
  deleted: boolean;
  labels: number[];
}

export interface SearchFilter {
  principal: string;
  modality?: Modality | undefined;
  maxDistance?: number | undefined;
}

/** Above this many passages, the pool's similarity stats are estimated from an even sample of this size. */
const STATS_SAMPLE = 4096;

/** Most labels caught up one by one after loading a file; beyond this the file is stale and rebuilt. */
const CATCH_UP_MAX = 2000;

/**
 * One owner's passages: every vector in a flat array (exact search, rebuilds) and, above `exactMax`
 * passages, an hnswlib-node index holding every live label. Labels are never reused, so a file written
 * earlier is brought up to date by adding the labels above its `covers` mark and deleting the missing ones.
 * Soft deletes, modality and readers are filters (so a restore is instant); a hard delete marks the label
 * deleted in hnswlib.
 */
export class OwnerVectorIndex {
  private vectors: Float32Array;
  private readonly docOf: Array<string | undefined> = [];
  private readonly docs = new Map<string, IndexedDoc>();
  private live = 0;
  private visible = 0;
  private restricted = 0;
  private readonly visibleByModality: Record<Modality, number> = { text: 0, image: 0, audio: 0 };
  private hnsw: Hnsw | null = null;
  private building: Promise<void> | null = null;
  private dirty = false;
  private closed = false;
  /**
   * The owner's stored passages left out of this index because another embedder made them (set when it is
   * filled, src/vector/indexes.ts): searching them beside this embedder's vectors would compare two spaces.
   */
  foreign: { passages: number; embedders: string[] } | null = null;

  constructor(private readonly options: VectorIndexOptions) {
    this.vectors = new Float32Array(options.dims * 64);
  }

  get size(): number {
    return this.live;
  }

  /** Whether searches go through hnswlib (else exact). */
  get approximate(): boolean {
    return this.hnsw !== null;
  }

  /**
   * Bytes this index holds in memory, roughly: the vector array as allocated, ~24 B per label slot, ~600 B
   * per document (its filter facts and labels; measured with 50,000 documents), and per hnswlib element
   * its vector, its level-0 links and ~560 B more (label map, lock, upper levels; measured: 2,355 B per
   * element at 384 dimensions and M=32).
   */
  get residentBytes(): number {
    const { dims, m } = this.options;
    const hnsw = this.hnsw ? this.hnsw.getCurrentCount() * (dims * 4 + 8 * m + 564) : 0;
    return this.vectors.byteLength + this.docOf.length * 24 + this.docs.size * 600 + hnsw;
  }

  /** Resolves once any build or load under way has finished. */
  async settled(): Promise<void> {
    while (this.building) await this.building;
  }

  /** Adds or replaces a document's passages and filter facts. */
  putDoc(docId: string, doc: Omit<IndexedDoc, 'labels'>, passages?: Array<{ label: number; vector: Float32Array }>): void {
    const previous = this.docs.get(docId);
    if (previous) this.count(previous, -1);
    const labels = passages ? passages.map((p) => p.label) : (previous?.labels ?? []);
    const next: IndexedDoc = { ...doc, labels };
    for (const { label, vector } of passages ?? []) this.addVector(label, docId, vector);
    this.docs.set(docId, next);
    this.count(next, +1);
  }

  /** Removes a document for good (hard delete). */
  removeDoc(docId: string): void {
    const doc = this.docs.get(docId);
    if (!doc) return;
    this.count(doc, -1);
    this.docs.delete(docId);
    for (const label of doc.labels) {
      if (this.docOf[label] === undefined) continue;
      this.docOf[label] = undefined;
      this.live--;
      this.markDeleted(label);
    }
  }

  /** The best passage of each matching document, best first, at most `k`. */
  search(query: Float32Array, k: number, filter: SearchFilter): PassageHit[] {
    const candidates = filter.modality ? this.visibleByModality[filter.modality] : this.visible;
    if (candidates === 0 || k <= 0) return [];
    const allow = (label: number) => this.allows(label, filter);
    let wanted = Math.min(candidates, k * 2);
    for (;;) {
      const passages = this.searchPassages(query, wanted, candidates, allow);
      const hits = bestPerDocument(passages, k, filter.maxDistance);
      const exhausted = passages.length < wanted || wanted >= candidates;
      const farEnough = filter.maxDistance !== undefined && (passages.at(-1)?.distance ?? 0) > filter.maxDistance;
      if (hits.length >= k || exhausted || farEnough) return hits;
      wanted = Math.min(candidates, wanted * 4);
    }
  }

  /** Whether a readable, live document with the filter's modality (the lexical index asks, src/search). */
  allowsDoc(docId: string, filter: SearchFilter): boolean {
    const doc = this.docs.get(docId);
    return !!doc && !doc.deleted && (!filter.modality || doc.modality === filter.modality) && canRead(doc.readers, filter.principal);
  }

  /** The cosine distance of one passage to the query; undefined when this index holds no vector for it. */
  distanceOf(label: number, query: Float32Array): number | undefined {
    return this.docOf[label] === undefined ? undefined : distanceTo(this.vectors, this.options.dims, label, query);
  }

  /**
   * Mean and spread of the query's cosine similarity over the owner's passages: every one up to
   * STATS_SAMPLE, an even sample of that many above it (a z-score needs the spread, not every value).
   */
  similarityStats(query: Float32Array): PoolStats {
    const stride = Math.max(1, Math.floor(this.live / STATS_SAMPLE));
    const sums = similaritySums(this.vectors, this.options.dims, this.sampleLabels(stride), query);
    return poolStats(sums.count, sums.sum, sums.sumOfSquares);
  }

  /** Writes the hnswlib index and its meta when they changed (on eviction and shutdown). */
  persist(): void {
    if (!this.hnsw || !this.dirty || this.building) return;
    const { filePath, embedderId, dims } = this.options;
    this.hnsw.writeIndexSync(`${filePath}.hnsw.tmp`);
    renameSync(`${filePath}.hnsw.tmp`, `${filePath}.hnsw`);
    this.writeMeta({ embedderId, dims, covers: this.docOf.length, foreign: this.foreignCount });
    this.dirty = false;
  }

  close(): void {
    try {
      this.persist();
    } catch (error) {
      this.options.onError(error, 'persist vector index');
    }
    this.closed = true;
  }

  /**
   * Loads the persisted index, or rebuilds it off the event loop, once the owner is large enough. Called
   * after writes and after a bulk load (never in the middle of one, so a build sees whole documents).
   */
  maybeBuild(): void {
    if (this.hnsw || this.building || this.closed || this.live <= this.options.exactMax) return;
    this.building = this.loadOrBuild()
      .catch((error) => this.options.onError(error, 'build vector index'))
      .finally(() => {
        this.building = null;
      });
  }

  private async loadOrBuild(): Promise<void> {
    const { filePath, dims } = this.options;
    let covers = 0;
    // A file is usable when it is ours and at most CATCH_UP_MAX labels behind. Writes that arrive during a
    // build can leave the fresh file behind again; it is rebuilt (a bounded number of times) rather than
    // caught up one synchronous addPoint at a time on the event loop.
    for (let attempt = 0; attempt < 3; attempt++) {
      const meta = this.readMeta();
      if (meta !== null && existsSync(`${filePath}.hnsw`) && this.docOf.length - meta.covers <= CATCH_UP_MAX) {
        covers = meta.covers;
        break;
      }
      const labels: number[] = [];
      for (let l = 0; l < this.docOf.length; l++) if (this.docOf[l] !== undefined) labels.push(l);
      const vectors = new Float32Array(labels.length * dims);
      labels.forEach((l, i) => vectors.set(this.vectors.subarray(l * dims, (l + 1) * dims), i * dims));
      covers = this.docOf.length;
      await buildHnswFile({ file: `${filePath}.hnsw`, dims, labels: Int32Array.from(labels), vectors, params: { m: this.options.m, efConstruction: this.options.efConstruction } });
      this.writeMeta({ embedderId: this.options.embedderId, dims, covers, foreign: this.foreignCount });
      if (this.closed) return;
    }
    if (this.closed) return;
    const index = new HierarchicalNSW('ip', dims);
    await index.readIndex(`${filePath}.hnsw`);
    if (this.closed) return;
    // From here on everything is synchronous: no write slips between the catch-up and the swap.
    this.hnsw = index;
    this.dirty = false;
    for (let l = 0; l < Math.min(covers, this.docOf.length); l++) if (this.docOf[l] === undefined) this.markDeleted(l);
    for (let l = covers; l < this.docOf.length; l++) if (this.docOf[l] !== undefined) this.addToHnsw(l);
    index.setEf(this.options.ef);
    if (this.docOf.length !== covers) this.dirty = true;
  }

  private searchPassages(
    query: Float32Array,
    wanted: number,
    candidates: number,
    allow: (label: number) => boolean,
  ): Array<PassageHit> {
    const unfiltered = candidates === this.live && this.restricted === 0;
    if (this.hnsw && candidates > this.options.exactMax) {
      this.hnsw.setEf(Math.max(this.options.ef, wanted));
      const found = this.hnsw.searchKnn(Array.from(query), wanted, unfiltered ? undefined : allow);
      // hnswlib may come back short under a selective filter: exact search never does.
      if (found.neighbors.length >= wanted) {
        return found.neighbors.map((label, i) => ({ label, docId: this.docOf[label]!, distance: found.distances[i]! }));
      }
    }
    const labels = this.allowedLabels(allow);
    return exactSearch(this.vectors, this.options.dims, labels, query, wanted).map((h) => ({ ...h, docId: this.docOf[h.label]! }));
  }

  private *allowedLabels(allow: (label: number) => boolean): Generator<number> {
    for (let l = 0; l < this.docOf.length; l++) if (this.docOf[l] !== undefined && allow(l)) yield l;
  }

  private allows(label: number, filter: SearchFilter): boolean {
    const docId = this.docOf[label];
    return docId !== undefined && this.allowsDoc(docId, filter);
  }

  private *sampleLabels(stride: number): Generator<number> {
    let seen = 0;
    for (let l = 0; l < this.docOf.length; l++) if (this.docOf[l] !== undefined && seen++ % stride === 0) yield l;
  }

  private addVector(label: number, docId: string, vector: Float32Array): void {
    const { dims } = this.options;
    if (vector.length !== dims) return;
    while ((label + 1) * dims > this.vectors.length) {
      const grown = new Float32Array(this.vectors.length * 2);
      grown.set(this.vectors);
      this.vectors = grown;
    }
    this.vectors.set(vector, label * dims);
    if (this.docOf[label] === undefined) this.live++;
    while (this.docOf.length <= label) this.docOf.push(undefined);
    this.docOf[label] = docId;
    if (this.hnsw) this.addToHnsw(label);
  }

  private addToHnsw(label: number): void {
    const index = this.hnsw!;
    if (index.getCurrentCount() >= index.getMaxElements()) index.resizeIndex(Math.max(64, index.getMaxElements() * 2));
    const { dims } = this.options;
    index.addPoint(Array.from(this.vectors.subarray(label * dims, (label + 1) * dims)), label);
    this.dirty = true;
  }

  private markDeleted(label: number): void {
    if (!this.hnsw) return;
    try {
      this.hnsw.markDelete(label);
      this.dirty = true;
    } catch {
      // hnswlib throws for a label already deleted or never added: either way it is not searchable.
    }
  }

  private count(doc: IndexedDoc, sign: 1 | -1): void {
    if (doc.deleted) return;
    const n = sign * doc.labels.length;
    this.visible += n;
    this.visibleByModality[doc.modality] += n;
    if (doc.readers !== null) this.restricted += n;
  }

  private get foreignCount(): number {
    return this.foreign?.passages ?? 0;
  }

  private readMeta() {
    return readIndexMeta(this.options.filePath, { ...this.options, foreign: this.foreignCount });
  }

  private writeMeta(meta: IndexFileMeta): void {
    writeIndexMeta(this.options.filePath, meta);
  }
}
