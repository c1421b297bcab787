/**
 * One term's postings: the labels of the passages that hold it and how often, in growable typed arrays
 * (6 bytes an entry instead of a JS object's ~40), in the order passages were added.
 */
export class Postings {
  labels = new Int32Array(4);
  counts = new Uint16Array(4);
  size = 0;

  add(label: number, count: number): void {
    if (this.size === this.labels.length) {
      const labels = new Int32Array(this.size * 2);
      labels.set(this.labels);
      this.labels = labels;
      const counts = new Uint16Array(this.size * 2);
      counts.set(this.counts);
      this.counts = counts;
    }
    this.labels[this.size] = label;
    this.counts[this.size] = Math.min(count, 0xffff);
    this.size++;
  }

  /** Keeps only the entries whose label `keep` accepts (compaction after hard deletes). */
  retain(keep: (label: number) => boolean): void {
    let kept = 0;
    for (let i = 0; i < this.size; i++) {
      const label = this.labels[i]!;
      if (!keep(label)) continue;
      this.labels[kept] = label;
      this.counts[kept] = this.counts[i]!;
      kept++;
    }
    this.size = kept;
  }

  get bytes(): number {
    return this.labels.byteLength + this.counts.byteLength + 64;
  }
}
