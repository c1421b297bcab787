/**
 * One term's postings: the labels of the passages that hold it and how often, in the order passages were
 * added. The first entry sits in two fields and the others in one growable typed array (label, count,
 * label, count, …): most terms of a small owner are in one passage, and two typed arrays per term were
 * most of the heap a resident small owner held (issue 16, bench:owners).
 */
export class Postings {
  size = 0;
  private firstLabel = 0;
  private firstCount = 0;
  /** Entries after the first, interleaved; null until a second passage holds the term. */
  private rest: Int32Array | null = null;

  labelAt(i: number): number {
    return i === 0 ? this.firstLabel : this.rest![2 * i - 2]!;
  }

  countAt(i: number): number {
    return i === 0 ? this.firstCount : this.rest![2 * i - 1]!;
  }

  add(label: number, count: number): void {
    this.set(this.size++, label, Math.min(count, 0xffff));
  }

  /** Keeps only the entries whose label `keep` accepts (compaction after hard deletes). */
  retain(keep: (label: number) => boolean): void {
    let kept = 0;
    for (let i = 0; i < this.size; i++) {
      const label = this.labelAt(i);
      if (keep(label)) this.set(kept++, label, this.countAt(i));
    }
    this.size = kept;
    if (kept <= 1) this.rest = null;
  }

  /** Bytes held, roughly: the object, and the typed array with its own objects when there is one. */
  get bytes(): number {
    return 48 + (this.rest ? this.rest.byteLength + 160 : 0);
  }

  private set(i: number, label: number, count: number): void {
    if (i === 0) {
      this.firstLabel = label;
      this.firstCount = count;
      return;
    }
    const at = 2 * i - 2;
    if (!this.rest || at >= this.rest.length) {
      const grown = new Int32Array(Math.max(4, (this.rest?.length ?? 0) * 2));
      if (this.rest) grown.set(this.rest);
      this.rest = grown;
    }
    this.rest[at] = label;
    this.rest[at + 1] = count;
  }
}
