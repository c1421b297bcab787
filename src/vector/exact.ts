import { poolStats, type PoolStats } from '../domain/fusion.js';
import { MinHeap } from '../domain/top-n.js';
import { LabelFlag } from './label-table.js';

/**
 * Exact nearest neighbours by brute force over unit vectors (distance = 1 - dot). Used while an owner is
 * small, when a filter lets few passages through, and as the fallback when the approximate index returns
 * fewer than asked. `vectors` holds `dims` floats per label slot.
 */
export function exactSearch(
  vectors: Float32Array,
  dims: number,
  labels: Iterable<number>,
  query: Float32Array,
  n: number,
): Array<{ label: number; distance: number }> {
  // The n nearest are the n of largest similarity (ties: smaller label first, as before).
  const heap = new MinHeap(n);
  for (const label of labels) heap.offer(similarity(vectors, dims, label, query), label);
  return heap.sorted().map(([label, dot]) => ({ label, distance: 1 - dot }));
}

/**
 * Mean and spread of the query's cosine similarity over every `stride`-th live label below `upTo` (live: its
 * flags byte says so). One plain loop, because it runs on every hybrid search, on the event loop for a
 * small owner and in the vector worker for a large one: the same sample summed in the same order, so the
 * same figures either way.
 */
export function sampledSimilarity(vectors: Float32Array, flags: Uint8Array, dims: number, upTo: number, stride: number, query: Float32Array): PoolStats {
  let seen = 0;
  let count = 0;
  let sum = 0;
  let sumOfSquares = 0;
  for (let label = 0; label < upTo; label++) {
    if ((flags[label]! & LabelFlag.live) === 0 || seen++ % stride !== 0) continue;
    const dot = similarity(vectors, dims, label, query);
    count++;
    sum += dot;
    sumOfSquares += dot * dot;
  }
  return poolStats(count, sum, sumOfSquares);
}

/** Cosine distance of one label's vector to the query. */
export function distanceTo(vectors: Float32Array, dims: number, label: number, query: Float32Array): number {
  return 1 - similarity(vectors, dims, label, query);
}

/** Cosine similarity (the dot product of unit vectors) of one label's vector to the query: every caller sums in this order. */
function similarity(vectors: Float32Array, dims: number, label: number, query: Float32Array): number {
  const base = label * dims;
  let dot = 0;
  for (let i = 0; i < dims; i++) dot += vectors[base + i]! * query[i]!;
  return dot;
}
