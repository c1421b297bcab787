import { chmodSync, existsSync, renameSync, rmSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import hnswlib from 'hnswlib-node';
import type { HierarchicalNSW as Hnsw } from 'hnswlib-node';
import { exactSearch, sampledSimilarity } from '../exact.js';
import { PRIVATE_FILE } from '../../store/private-files.js';
import { readIndexMeta, writeIndexMeta } from '../index-meta.js';
import { LabelFlag, labelPredicate, type LabelBuffers } from '../label-table.js';
import type { GraphEvent, GraphSearch, Neighbours, OpenGraph } from './protocol.js';

const { HierarchicalNSW } = hnswlib;

/** A graph that has added every published label and heard of no new one this long writes its new labels at once. */
const IDLE_MS = 2000;
/**
 * Checkpoints wait at least this many times as long as the last write took, so writing the file (~0.4 s at
 * 100k passages, growing with the owner) takes at most about a tenth of the worker's time.
 */
const WRITE_SPACING = 10;

/**
 * One owner's hnswlib index inside the vector worker. It reads the owner's vectors and label flags from
 * the shared buffers, and adds every live label below the published mark, in order, a time slice at a
 * time (`work`), so searches of every owner interleave with a long build. Labels not added yet (the tail)
 * are searched exactly, so a write is found the moment it is acknowledged. The file is checkpointed as it
 * grows (tmp + rename, then the meta with its `covers` mark), so a restart after `kill -9` loads it and
 * adds only the labels above the mark.
 */
export class OwnerGraph {
  private hnsw: Hnsw | null = null;
  private loading: Promise<void> | null = null;
  private vectors: Float32Array;
  private flags: Uint8Array;
  private readonly dims: number;
  /** Every label below this was added (or was dead when reached). */
  private indexed = 0;
  /** Labels below this exist in the buffers. */
  private known: number;
  private dirty = false;
  private checkpointed = { covers: 0, at: performance.now(), took: 0 };
  private lastAdd = 0;
  private waiters: Array<{ upTo: number; resolve: () => void }> = [];
  private readonly point: number[];

  constructor(
    private readonly spec: OpenGraph,
    private readonly emit: (event: GraphEvent) => void,
  ) {
    this.dims = spec.meta.dims;
    this.vectors = new Float32Array(spec.buffers.vectors);
    this.flags = new Uint8Array(spec.buffers.flags);
    this.known = spec.upTo;
    this.point = new Array<number>(this.dims);
    this.loading = this.open().finally(() => {
      this.loading = null;
      this.wake();
    });
  }

  setBuffers(buffers: LabelBuffers): void {
    this.vectors = new Float32Array(buffers.vectors);
    this.flags = new Uint8Array(buffers.flags);
  }

  publish(upTo: number): void {
    this.known = Math.max(this.known, upTo);
  }

  /** Whether labels wait to be added. */
  get pending(): boolean {
    return this.hnsw !== null && this.loading === null && this.indexed < this.known;
  }

  /** Hard deletes: labels already in hnswlib are marked deleted (the flags already hide them from searches). */
  remove(labels: number[]): void {
    for (const label of labels) if (label < this.indexed) this.markDeleted(label);
  }

  /**
   * Labels the sequential pass went by while they had no vector of this embedder, and that now have one
   * (re-embedded passages): added at once, or left to the pass when it has not reached them (or the file
   * is still loading: its pass starts at the file's mark).
   */
  revive(labels: number[]): void {
    if (this.loading) return void this.loading.then(() => this.revive(labels));
    for (const label of labels) if (label < this.indexed) this.add(label);
  }

  /** Adds pending labels until `deadline` (performance.now() ms), then checkpoints when one is due. */
  work(deadline: number): void {
    if (!this.hnsw || this.loading) return;
    while (this.indexed < this.known && performance.now() < deadline) this.add(this.indexed++);
    this.maybeCheckpoint();
    this.wake();
  }

  private add(label: number): void {
    const index = this.hnsw!;
    if ((this.flags[label]! & LabelFlag.live) === 0) return;
    if (index.getCurrentCount() >= index.getMaxElements()) index.resizeIndex(Math.max(1024, index.getMaxElements() * 2));
    const base = label * this.dims;
    for (let d = 0; d < this.dims; d++) this.point[d] = this.vectors[base + d]!;
    index.addPoint(this.point, label);
    this.dirty = true;
    this.lastAdd = performance.now();
  }

  /**
   * Writes the file when enough labels were added since the last one, when a change is old enough, or when
   * new labels are all added and the owner went quiet (so a settled index is on disk within seconds).
   */
  maybeCheckpoint(now = performance.now()): void {
    if (!this.dirty || !this.hnsw || this.loading) return;
    const { labels, ms } = this.spec.checkpoint;
    if (now - this.checkpointed.at < WRITE_SPACING * this.checkpointed.took) return;
    const fresh = this.indexed - this.checkpointed.covers;
    const quiet = fresh > 0 && this.indexed >= this.known && now - this.lastAdd >= IDLE_MS;
    if (fresh >= labels || now - this.checkpointed.at >= ms || quiet) this.checkpoint();
  }

  /** The nearest `wanted` passages the filter lets through, of every label below `upTo` (and the pool's stats when asked). */
  search(request: GraphSearch): Neighbours {
    this.publish(request.upTo);
    const found = this.nearest(request);
    if (request.statsStride === undefined) return found;
    return { ...found, stats: sampledSimilarity(this.vectors, this.flags, this.dims, request.upTo, request.statsStride, request.query) };
  }

  private nearest(request: GraphSearch): Neighbours {
    if (request.wanted <= 0) return { labels: [], distances: [] };
    const allow = labelPredicate(this.flags, request.filter);
    const index = this.hnsw && !this.loading ? this.hnsw : null;
    if (index && !request.exact && index.getCurrentCount() > 0) {
      const n = Math.min(request.wanted, index.getCurrentCount());
      index.setEf(Math.max(this.spec.ef, n));
      const found = index.searchKnn(Array.from(request.query), n, request.filtered ? allow : undefined);
      // hnswlib may come back short under a selective filter: the exact scan below never does.
      if (found.neighbors.length >= n) {
        const tail = exactSearch(this.vectors, this.dims, this.labels(this.indexed, request.upTo, allow), request.query, request.wanted);
        const hits = found.neighbors.map((label, i) => ({ label, distance: found.distances[i]! })).concat(tail);
        hits.sort((a, b) => a.distance - b.distance || a.label - b.label);
        return toNeighbours(hits.slice(0, request.wanted));
      }
    }
    return toNeighbours(exactSearch(this.vectors, this.dims, this.labels(0, request.upTo, allow), request.query, request.wanted));
  }

  /** Resolves once every label published so far is added (and the file, if any, loaded). */
  settled(): Promise<void> {
    return new Promise((resolve) => {
      this.waiters.push({ upTo: this.known, resolve });
      this.wake();
    });
  }

  /** Writes what changed since the last checkpoint (unless `persist` is false); the owner's index leaves the worker. */
  async close(persist = true): Promise<void> {
    await this.loading;
    if (persist && this.dirty) this.checkpoint();
    this.hnsw = null;
    for (const waiter of this.waiters.splice(0)) waiter.resolve();
  }

  private async open(): Promise<void> {
    const started = performance.now();
    const { filePath, meta, params, ef } = this.spec;
    const index = new HierarchicalNSW('ip', this.dims);
    const file = readIndexMeta(filePath, meta);
    let covers: number | null = null;
    if (file && existsSync(`${filePath}.hnsw`)) {
      try {
        await index.readIndex(`${filePath}.hnsw`);
        covers = file.covers;
      } catch (error) {
        this.report('load vector index checkpoint', error);
      }
    }
    if (covers === null) index.initIndex({ maxElements: Math.max(1024, this.known), m: params.m, efConstruction: params.efConstruction, randomSeed: 100 });
    index.setEf(ef);
    this.hnsw = index;
    this.indexed = covers ?? 0;
    this.checkpointed = { covers: this.indexed, at: performance.now(), took: 0 };
    // Labels hard-deleted since the file was written: hidden by their flags, marked so hnswlib skips them.
    for (let label = 0; label < this.indexed; label++) if ((this.flags[label]! & LabelFlag.live) === 0) this.markDeleted(label);
    this.emit({ event: 'opened', owner: this.spec.owner, covers, ms: performance.now() - started });
  }

  private checkpoint(): void {
    const started = performance.now();
    const { filePath, meta } = this.spec;
    const tmp = `${filePath}.hnsw.tmp`;
    try {
      // hnswlib creates the file with the process umask: closed before it takes the index's name.
      this.hnsw!.writeIndexSync(tmp);
      chmodSync(tmp, PRIVATE_FILE);
      renameSync(tmp, `${filePath}.hnsw`);
      writeIndexMeta(filePath, { ...meta, covers: this.indexed });
    } catch (error) {
      // A full disk: the last checkpoint stays valid, and the partial file would only hold space.
      rmSync(tmp, { force: true });
      this.report('checkpoint vector index', error);
      return;
    }
    this.dirty = false;
    const took = performance.now() - started;
    this.checkpointed = { covers: this.indexed, at: performance.now(), took };
    this.emit({ event: 'checkpoint', owner: this.spec.owner, covers: this.indexed, ms: took });
  }

  private *labels(from: number, to: number, allow: (label: number) => boolean): Generator<number> {
    for (let label = from; label < to; label++) if (allow(label)) yield label;
  }

  private markDeleted(label: number): void {
    try {
      this.hnsw?.markDelete(label);
      this.dirty = true;
    } catch {
      // hnswlib throws for a label already deleted or never added: either way it is not searchable.
    }
  }

  private wake(): void {
    if (this.loading) return;
    this.waiters = this.waiters.filter((waiter) => {
      if (this.indexed < waiter.upTo) return true;
      waiter.resolve();
      return false;
    });
  }

  private report(what: string, error: unknown): void {
    this.emit({ event: 'error', owner: this.spec.owner, what, message: error instanceof Error ? error.message : String(error) });
  }
}

function toNeighbours(hits: Array<{ label: number; distance: number }>): Neighbours {
  return { labels: hits.map((h) => h.label), distances: hits.map((h) => h.distance) };
}
