import { finishGroupRows, groupCapExceeded, type GroupRow } from '../plan/aggregate.js';
import type { CompiledAggregate, GroupSortKey, ResolvedField } from '../plan/types.js';
import { CHUNK_SHIFT, CHUNK_SIZE, columnForm } from '../storage/layout.js';
import type { IndexReader } from '../storage/reader.js';
import type { StringChunk } from '../storage/string-chunk.js';

type KeyValue = string | number | null;

/** Whether the columnar path can run a groups query: it reads single values, so no string_list field. */
export function columnarApplies(groupBy: ResolvedField[], aggregates: CompiledAggregate[]): boolean {
  return [...groupBy, ...aggregates.map((a) => a.field)].every((f) => f === null || f.type !== 'string_list');
}

/**
 * Mode B over typed column chunks (the same answers as `GroupAccumulator`, which stays the reference):
 * each chunk is read once; a group_by field becomes small per-chunk codes (a string chunk's dictionary
 * codes, or codes given to a numeric chunk's distinct values), so a document finds its group through a
 * per-chunk table indexed by its codes, and each distinct key is looked up by value once per chunk.
 * Aggregates accumulate into typed arrays per group, in document-number order like the reference, so
 * floating-point sums are bit-identical. Rows are built once, for the final groups.
 */
export function columnarGroupRows(
  reader: IndexReader,
  t: string,
  docs: Uint32Array,
  query: { groupBy: ResolvedField[]; aggregates: CompiledAggregate[]; sort: GroupSortKey[] },
  maxGroups: number,
): GroupRow[] {
  const groups = new GroupTable(query.groupBy.length, maxGroups);
  const accs = query.aggregates.map((a) => new AggregateColumn(a));
  for (let from = 0; from < docs.length; ) {
    const chunkNo = docs[from]! >>> CHUNK_SHIFT;
    let to = from;
    while (to < docs.length && docs[to]! >>> CHUNK_SHIFT === chunkNo) to++;
    const keys = query.groupBy.map((f) => chunkKeys(reader, t, f, chunkNo, docs, from, to));
    for (const acc of accs) acc.load(reader, t, chunkNo);
    const k0 = keys[0];
    const k1 = keys[1];
    const width = k1 ? k1.values.length : 1;
    const local = new LocalGroups((k0 ? k0.values.length : 1) * width);
    for (let i = from; i < to; i++) {
      const at = docs[i]! & (CHUNK_SIZE - 1);
      const code0 = k0 ? k0.codes[at]! : 0;
      const code1 = k1 ? k1.codes[at]! : 0;
      const slot = code0 * width + code1;
      let g = local.get(slot);
      if (g < 0) local.set(slot, (g = groups.resolve(k0 ? k0.values[code0]! : null, k1 ? k1.values[code1]! : null)));
      for (let a = 0; a < accs.length; a++) accs[a]!.add(g, at);
    }
    from = to;
  }
  const rows: GroupRow[] = groups.keys.map((keys, g) => ({ keys, values: accs.map((acc) => acc.result(g)) }));
  return finishGroupRows(rows, query.groupBy.length, query.aggregates, query.sort);
}

/** One group_by field over one chunk: `codes[at]` indexes `values` (code 0 = missing, the `null` group). */
interface ChunkKeys {
  codes: Uint16Array;
  values: KeyValue[];
}

function chunkKeys(reader: IndexReader, t: string, field: ResolvedField, chunkNo: number, docs: Uint32Array, from: number, to: number): ChunkKeys {
  if (columnForm(field.type) === 'string') {
    const chunk = reader.stringChunk(t, field.ver, chunkNo);
    return { codes: chunk.codes, values: [null, ...chunk.dict] };
  }
  const column = reader.numericChunk(t, field.ver, chunkNo);
  const codes = new Uint16Array(CHUNK_SIZE);
  const values: KeyValue[] = [null];
  const seen = new Map<number, number>();
  for (let i = from; i < to; i++) {
    const at = docs[i]! & (CHUNK_SIZE - 1);
    const n = column[at]!;
    if (Number.isNaN(n)) continue;
    let code = seen.get(n);
    if (code === undefined) seen.set(n, (code = values.push(n) - 1));
    codes[at] = code;
  }
  return { codes, values };
}

/** A chunk's code tuples → group index (-1: not seen yet); a dense table unless the tuples are too many. */
class LocalGroups {
  private static readonly DENSE_MAX = 1 << 14;
  private readonly dense: Int32Array | null;
  private readonly sparse = new Map<number, number>();

  constructor(size: number) {
    this.dense = size <= LocalGroups.DENSE_MAX ? new Int32Array(size).fill(-1) : null;
  }

  get(slot: number): number {
    return this.dense ? this.dense[slot]! : (this.sparse.get(slot) ?? -1);
  }

  set(slot: number, g: number): void {
    if (this.dense) this.dense[slot] = g;
    else this.sparse.set(slot, g);
  }
}

/** Group keys by value → group index, in the order groups first appear; more than `maxGroups` is the 400. */
class GroupTable {
  readonly keys: KeyValue[][] = [];
  private readonly index = new Map<KeyValue, Map<KeyValue, number>>();

  constructor(
    private readonly width: number,
    private readonly maxGroups: number,
  ) {}

  resolve(k0: KeyValue, k1: KeyValue): number {
    let inner = this.index.get(k0);
    if (!inner) this.index.set(k0, (inner = new Map()));
    let g = inner.get(k1);
    if (g === undefined) {
      if (this.keys.length >= this.maxGroups) throw groupCapExceeded(this.maxGroups);
      g = this.keys.length;
      this.keys.push(this.width === 0 ? [] : this.width === 1 ? [k0] : [k0, k1]);
      inner.set(k1, g);
    }
    return g;
  }
}

/**
 * One aggregate's state for every group, in typed arrays grown by doubling: documents with a value
 * (`count`), their sum, min and max, or the distinct values for count_distinct.
 */
class AggregateColumn {
  private count = new Float64Array(64);
  private sum = new Float64Array(64);
  private min = new Float64Array(64);
  private max = new Float64Array(64);
  private distinct: Array<Set<string | number>> = [];
  private numeric: Float64Array | null = null;
  private strings: StringChunk | null = null;

  constructor(private readonly aggregate: CompiledAggregate) {}

  load(reader: IndexReader, t: string, chunkNo: number): void {
    const field = this.aggregate.field;
    if (field === null) return;
    if (columnForm(field.type) === 'string') this.strings = reader.stringChunk(t, field.ver, chunkNo);
    else this.numeric = reader.numericChunk(t, field.ver, chunkNo);
  }

  add(g: number, at: number): void {
    if (g >= this.count.length) this.grow();
    const op = this.aggregate.op;
    if (this.aggregate.field === null) {
      this.count[g]! += 1;
    } else if (this.numeric) {
      const n = this.numeric[at]!;
      if (Number.isNaN(n)) return;
      if (op === 'count_distinct') (this.distinct[g] ??= new Set()).add(n);
      else this.addNumber(g, n);
    } else {
      const code = this.strings!.codes[at]!;
      if (code === 0) return;
      if (op === 'count_distinct') (this.distinct[g] ??= new Set()).add(this.strings!.dict[code - 1]!);
      else this.count[g]! += 1;
    }
  }

  /** The group's answer, as `GroupAccumulator` gives it: null for sum/avg/min/max without values. */
  result(g: number): number | null {
    const count = this.count[g] ?? 0;
    switch (this.aggregate.op) {
      case 'count':
        return count;
      case 'count_distinct':
        return this.distinct[g]?.size ?? 0;
      case 'sum':
        return count === 0 ? null : this.sum[g]!;
      case 'avg':
        return count === 0 ? null : this.sum[g]! / count;
      case 'min':
        return count === 0 ? null : this.min[g]!;
      case 'max':
        return count === 0 ? null : this.max[g]!;
    }
  }

  private addNumber(g: number, n: number): void {
    const seen = this.count[g]!;
    this.count[g] = seen + 1;
    this.sum[g]! += n;
    if (seen === 0 || n < this.min[g]!) this.min[g] = n;
    if (seen === 0 || n > this.max[g]!) this.max[g] = n;
  }

  private grow(): void {
    const bigger = (a: Float64Array) => {
      const out = new Float64Array(a.length * 2);
      out.set(a);
      return out;
    };
    this.count = bigger(this.count);
    this.sum = bigger(this.sum);
    this.min = bigger(this.min);
    this.max = bigger(this.max);
  }
}
