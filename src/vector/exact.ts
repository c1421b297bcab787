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
  const heap = new MaxHeap(n);
  for (const label of labels) {
    const base = label * dims;
    let dot = 0;
    for (let i = 0; i < dims; i++) dot += vectors[base + i]! * query[i]!;
    heap.offer(label, 1 - dot);
  }
  return heap.sorted();
}

/** Keeps the `capacity` smallest distances seen. */
class MaxHeap {
  private readonly labels: number[] = [];
  private readonly dist: number[] = [];
  constructor(private readonly capacity: number) {}

  offer(label: number, distance: number): void {
    if (this.capacity <= 0) return;
    if (this.labels.length < this.capacity) {
      this.labels.push(label);
      this.dist.push(distance);
      this.up(this.labels.length - 1);
    } else if (distance < this.dist[0]!) {
      this.labels[0] = label;
      this.dist[0] = distance;
      this.down(0);
    }
  }

  sorted(): Array<{ label: number; distance: number }> {
    return this.labels.map((label, i) => ({ label, distance: this.dist[i]! })).sort((a, b) => a.distance - b.distance || a.label - b.label);
  }

  private up(i: number): void {
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (this.dist[p]! >= this.dist[i]!) return;
      this.swap(i, p);
      i = p;
    }
  }

  private down(i: number): void {
    const n = this.labels.length;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < n && this.dist[l]! > this.dist[m]!) m = l;
      if (r < n && this.dist[r]! > this.dist[m]!) m = r;
      if (m === i) return;
      this.swap(i, m);
      i = m;
    }
  }

  private swap(a: number, b: number): void {
    [this.labels[a], this.labels[b]] = [this.labels[b]!, this.labels[a]!];
    [this.dist[a], this.dist[b]] = [this.dist[b]!, this.dist[a]!];
  }
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
