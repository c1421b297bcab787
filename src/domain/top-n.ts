/**
 * Keeps the `capacity` largest values offered (ties: the smaller label wins), for top-n selection without
 * sorting every candidate.
 */
export class MinHeap {
  private readonly values: number[] = [];
  private readonly labels: number[] = [];

  constructor(private readonly capacity: number) {}

  /** Whether an offer of this value and label would be kept (cheap check before costlier filters). */
  wouldTake(value: number, label: number): boolean {
    if (this.capacity <= 0) return false;
    return this.values.length < this.capacity || this.worse(0, value, label);
  }

  offer(value: number, label: number): void {
    if (!this.wouldTake(value, label)) return;
    if (this.values.length < this.capacity) {
      this.values.push(value);
      this.labels.push(label);
      this.up(this.values.length - 1);
    } else {
      this.values[0] = value;
      this.labels[0] = label;
      this.down(0);
    }
  }

  /** Best first. */
  sorted(): Array<[label: number, value: number]> {
    return this.labels.map((label, i) => [label, this.values[i]!] as [number, number]).sort((a, b) => b[1] - a[1] || a[0] - b[0]);
  }

  /** Whether the entry at `i` ranks below (value, label). */
  private worse(i: number, value: number, label: number): boolean {
    return this.values[i]! < value || (this.values[i] === value && this.labels[i]! > label);
  }

  private up(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.worse(i, this.values[parent]!, this.labels[parent]!)) return;
      this.swap(i, parent);
      i = parent;
    }
  }

  private down(i: number): void {
    const n = this.values.length;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let least = i;
      if (left < n && this.worse(left, this.values[least]!, this.labels[least]!)) least = left;
      if (right < n && this.worse(right, this.values[least]!, this.labels[least]!)) least = right;
      if (least === i) return;
      this.swap(i, least);
      i = least;
    }
  }

  private swap(a: number, b: number): void {
    [this.values[a], this.values[b]] = [this.values[b]!, this.values[a]!];
    [this.labels[a], this.labels[b]] = [this.labels[b]!, this.labels[a]!];
  }
}
