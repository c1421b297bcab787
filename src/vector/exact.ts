import { MinHeap } from '../domain/top-n.js';

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
  for (const label of labels) {
    const base = label * dims;
    let dot = 0;
    for (let i = 0; i < dims; i++) dot += vectors[base + i]! * query[i]!;
    heap.offer(dot, label);
  }
  return heap.sorted().map(([label, dot]) => ({ label, distance: 1 - dot }));
}

/** Count, sum and sum of squares of the query's cosine similarity to each label's vector (for pool stats). */
export function similaritySums(
  vectors: Float32Array,
  dims: number,
  labels: Iterable<number>,
  query: Float32Array,
): { count: number; sum: number; sumOfSquares: number } {
  let count = 0;
  let sum = 0;
  let sumOfSquares = 0;
  for (const label of labels) {
    const base = label * dims;
    let dot = 0;
    for (let i = 0; i < dims; i++) dot += vectors[base + i]! * query[i]!;
    count++;
    sum += dot;
    sumOfSquares += dot * dot;
  }
  return { count, sum, sumOfSquares };
}

/** Cosine distance of one label's vector to the query. */
export function distanceTo(vectors: Float32Array, dims: number, label: number, query: Float32Array): number {
  const base = label * dims;
  let dot = 0;
  for (let i = 0; i < dims; i++) dot += vectors[base + i]! * query[i]!;
  return 1 - dot;
}
