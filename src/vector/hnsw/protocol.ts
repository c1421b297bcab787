import type { PoolStats } from '../../domain/fusion.js';
import type { IndexFileMeta } from '../index-meta.js';
import type { LabelBuffers, LabelFilter } from '../label-table.js';

/** The graph every owner's index is built with (docs/search.md: recall@10 0.974 at ef 400 on 100k passages). */
export interface HnswParams {
  m: number;
  efConstruction: number;
}

export const HNSW_DEFAULTS: HnswParams = { m: 32, efConstruction: 200 };

/** When the worker writes an owner's index file: after this many new labels, or this long after any change. */
export interface CheckpointPolicy {
  labels: number;
  ms: number;
}

/** What the vector worker is told when an owner's index opens there. */
export interface OpenGraph {
  owner: number;
  /** Index file path without extension (`.hnsw` and `.json` beside it). */
  filePath: string;
  /** The meta a reusable file must carry (every field equal); written back with `covers`. */
  meta: Omit<IndexFileMeta, 'covers'>;
  params: HnswParams;
  ef: number;
  buffers: LabelBuffers;
  /** Labels below this are in the buffers (some of them dead). */
  upTo: number;
  checkpoint: CheckpointPolicy;
}

/** One search of one owner's labels below `upTo`, in the worker. */
export interface GraphSearch {
  owner: number;
  query: Float32Array;
  wanted: number;
  upTo: number;
  filter: LabelFilter;
  /** Whether the filter may reject a label hnswlib would return (else hnswlib runs without a callback). */
  filtered: boolean;
  /** Few candidates: scan them exactly instead of asking hnswlib. */
  exact: boolean;
  /** Also the query's similarity stats over every `stride`-th live label (hybrid ranking's pool), in the same trip. */
  statsStride?: number;
}

export type WorkerRequest =
  | ({ type: 'open' } & OpenGraph)
  | { type: 'buffers'; owner: number; buffers: LabelBuffers }
  | { type: 'publish'; owner: number; upTo: number }
  | { type: 'delete'; owner: number; labels: number[] }
  | { type: 'revive'; owner: number; labels: number[] }
  | ({ type: 'search'; id: number } & GraphSearch)
  | { type: 'settled'; id: number; owner: number }
  /** `persist: false` drops the index without writing it (its owner is being erased). */
  | { type: 'close'; id: number; owner: number; persist: boolean };

/** Exact or approximate neighbours, nearest first (ties by label), and the pool's stats when asked. */
export interface Neighbours {
  labels: number[];
  distances: number[];
  stats?: PoolStats;
}

/** What an owner's index in the worker reports without being asked. */
export type GraphEvent =
  /** Opened: from a checkpoint covering labels below `covers`, or new (`covers` null: built from the vectors). */
  | { event: 'opened'; owner: number; covers: number | null; ms: number }
  | { event: 'checkpoint'; owner: number; covers: number; ms: number }
  | { event: 'error'; owner: number; what: string; message: string };

export type WorkerReply = { id: number; value: unknown } | { id: number; error: string } | GraphEvent;
