/** A binary max-heap of candidate indexes under `cmp` (the worst kept candidate on top). */
export class MaxHeap {
  private readonly items: number[] = [];
  constructor(private readonly cmp: (a: number, b: number) => number) {}
  get size(): number {
    return this.items.length;
  }
  top(): number {
    return this.items[0]!;
  }
  push(v: number): void {
    const a = this.items;
    a.push(v);
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (this.cmp(a[i]!, a[p]!) <= 0) break;
      [a[i], a[p]] = [a[p]!, a[i]!];
      i = p;
    }
  }
  replaceTop(v: number): void {
    const a = this.items;
    a[0] = v;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < a.length && this.cmp(a[l]!, a[m]!) > 0) m = l;
      if (r < a.length && this.cmp(a[r]!, a[m]!) > 0) m = r;
      if (m === i) break;
      [a[i], a[m]] = [a[m]!, a[i]!];
      i = m;
    }
  }
  drain(): number[] {
    return this.items.splice(0);
  }
}
