import { finishGroupRows, groupCapExceeded, type GroupRow } from '../plan/aggregate.js';
import type { CompiledAggregate, GroupSortKey, ResolvedField } from '../plan/types.js';
import { forEachBlock, SEG_SIZE, splitInHalves, type DocSet } from '../storage/docset.js';
import { CHUNK_SHIFT, CHUNK_SIZE, columnForm } from '../storage/layout.js';
import type { IndexReader } from '../storage/reader.js';
import type { StringChunk } from '../storage/string-chunk.js';

type KeyValue = string | number | null;

/** Whether the columnar path can run a groups query: it reads single values, so no string_list field. */
export function columnarApplies(groupBy: ResolvedField[], aggregates: CompiledAggregate[]): boolean {
  return [...groupBy, ...aggregates.map((a) => a.field)].every((f) => f === null || f.type !== 'string_list');
}

/**
 * Mode B over typed column chunks (the same answers as `GroupAccumulator`, which stays the reference).
 * Over at least SPLIT_MIN candidates, the earlier and the later half (`splitInHalves`) are gathered
 * apart and merged, the earlier first: the same halves a helper thread takes (`parallel-groups.ts`), so
 * an answer's floating-point sums are the same to the bit on one thread or two; below it, everything is
 * gathered in one run, in document-number order like the reference, so its sums are bit-identical to it.
 */
export function columnarGroupRows(reader: IndexReader, t: string, docs: DocSet, query: GroupsQuery & { sort: GroupSortKey[] }, maxGroups: number): GroupRow[] {
  const halves = splitInHalves(docs, SPLIT_MIN);
  const partial = halves
    ? mergePartials(columnarPartial(reader, t, halves[0], query, maxGroups), columnarPartial(reader, t, halves[1], query, maxGroups), query.groupBy.length, maxGroups)
    : columnarPartial(reader, t, docs, query, maxGroups);
  return partialRows(partial, query);
}

/** Fewest candidates whose aggregation is split in two halves (one segment of document numbers). */
export const SPLIT_MIN = SEG_SIZE;

/** What a groups query needs to gather (a plain object: it is sent to the helper thread as it is). */
export interface GroupsQuery {
  groupBy: ResolvedField[];
  aggregates: CompiledAggregate[];
}

/**
 * Groups gathered over some candidates: their keys, in the order they first appeared, and for each
 * aggregate the per-group state, indexed like `keys`. Plain data, so a helper thread can send it back.
 */
export interface GroupPartial {
  keys: KeyValue[][];
  aggregates: AggregateState[];
}

/** Per group: documents with a value, their sum, min and max, and for count_distinct the distinct values. */
export interface AggregateState {
  count: Float64Array;
  sum: Float64Array;
  min: Float64Array;
  max: Float64Array;
  distinct: Array<Set<string | number> | undefined>;
}

/**
 * Gathers the candidates' groups: each chunk is read once; a group_by field becomes small per-chunk
 * codes (a string chunk's dictionary codes, or codes given to a numeric chunk's distinct values), so a
 * document finds its group through a per-chunk table indexed by its codes, and each distinct key is
 * looked up by value once per chunk. Aggregates accumulate into typed arrays per group, in
 * document-number order.
 */
export function columnarPartial(reader: IndexReader, t: string, docs: DocSet, query: GroupsQuery, maxGroups: number): GroupPartial {
  const groups = new GroupTable(query.groupBy.length, maxGroups);
  const accs = query.aggregates.map((a) => new AggregateColumn(a));
  // Per chunk: the candidates' offsets in the chunk and their groups, then one tight loop per aggregate.
  const gids = new Int32Array(CHUNK_SIZE);
  let lastKeys: ChunkKeys[] = [];
  let local: LocalGroups | null = null;
  forEachBlock(docs, CHUNK_SHIFT, (chunkNo, ats, n) => {
    const keys = query.groupBy.map((f, i) => chunkKeys(reader, t, f, chunkNo, ats, n, lastKeys[i]));
    const k0 = keys[0];
    const k1 = keys[1];
    const width = k1 ? k1.values.length : 1;
    // Chunks with the same dictionaries (low-cardinality strings: nearly all) keep the code → group table.
    if (!local || keys.some((k, i) => k.values !== lastKeys[i]!.values)) local = new LocalGroups((k0 ? k0.values.length : 1) * width);
    lastKeys = keys;
    const resolveSlot = (slot: number) => groups.resolve(k0 ? k0.values[Math.floor(slot / width)]! : null, k1 ? k1.values[slot % width]! : null);
    local.assign(k0?.codes ?? NO_KEY, k1?.codes ?? NO_KEY, width, ats, n, gids, resolveSlot);
    for (const acc of accs) acc.addChunk(reader, t, chunkNo, ats, gids, n, groups.keys.length);
  });
  return { keys: groups.keys, aggregates: accs.map((acc) => acc.state(groups.keys.length)) };
}

/**
 * The groups of two runs over disjoint candidates, `first` over the earlier documents: a group in both
 * adds `second`'s sum to `first`'s. More than `maxGroups` groups together is the 400. Both are consumed:
 * their distinct-value sets become the answer's.
 */
export function mergePartials(first: GroupPartial, second: GroupPartial, width: number, maxGroups: number): GroupPartial {
  const table = new GroupTable(width, maxGroups);
  for (const keys of first.keys) table.resolve(keys[0] ?? null, keys[1] ?? null);
  const groupOf = second.keys.map((keys) => table.resolve(keys[0] ?? null, keys[1] ?? null));
  const size = table.keys.length;
  const aggregates = first.aggregates.map((a, i) => {
    const b = second.aggregates[i]!;
    const out = newState(size);
    out.count.set(a.count);
    out.sum.set(a.sum);
    out.min.set(a.min);
    out.max.set(a.max);
    out.distinct = [...a.distinct];
    groupOf.forEach((g, j) => {
      const count = b.count[j]!;
      if (count > 0) {
        // As the loops keep extremes: the earlier half's on a tie.
        const had = out.count[g]! > 0;
        if (!had || b.min[j]! < out.min[g]!) out.min[g] = b.min[j]!;
        if (!had || b.max[j]! > out.max[g]!) out.max[g] = b.max[j]!;
        out.sum[g]! += b.sum[j]!;
        out.count[g]! += count;
      }
      const distinct = b.distinct[j];
      const mine = out.distinct[g];
      if (distinct && mine) for (const v of distinct) mine.add(v);
      else if (distinct) out.distinct[g] = distinct;
    });
    return out;
  });
  return { keys: table.keys, aggregates };
}

/** The answer's rows from gathered groups, as `GroupAccumulator` gives them. */
export function partialRows(partial: GroupPartial, query: GroupsQuery & { sort: GroupSortKey[] }): GroupRow[] {
  const rows: GroupRow[] = partial.keys.map((keys, g) => ({ keys, values: query.aggregates.map((a, i) => aggregateResult(a.op, partial.aggregates[i]!, g)) }));
  return finishGroupRows(rows, query.groupBy.length, query.aggregates, query.sort);
}

/** The group's answer, as `GroupAccumulator` gives it: null for sum/avg/min/max without values. */
function aggregateResult(op: CompiledAggregate['op'], state: AggregateState, g: number): number | null {
  const count = state.count[g] ?? 0;
  switch (op) {
    case 'count':
      return count;
    case 'count_distinct':
      return state.distinct[g]?.size ?? 0;
    case 'sum':
      return count === 0 ? null : state.sum[g]!;
    case 'avg':
      return count === 0 ? null : state.sum[g]! / count;
    case 'min':
      return count === 0 ? null : state.min[g]!;
    case 'max':
      return count === 0 ? null : state.max[g]!;
  }
}

/**
 * Whether the chunk's `n` candidates are all its documents: then `ats[i]` is `i`, and the per-document
 * loops read position `i` instead (a load less per document and loop, 7-17% of an unfiltered group-by).
 */
const isWhole = (n: number) => n === CHUNK_SIZE;

/** The codes of an absent group_by field: every document in the one (null) slot. */
const NO_KEY = new Uint16Array(CHUNK_SIZE);

/**
 * One group_by field over one chunk: `codes[at]` indexes `values` (code 0 = missing, the `null` group).
 * A string field's `values` is the previous chunk's array when its dictionary is the same.
 */
interface ChunkKeys {
  codes: Uint16Array;
  values: KeyValue[];
  strings: StringChunk | null;
}

function chunkKeys(reader: IndexReader, t: string, field: ResolvedField, chunkNo: number, ats: Uint16Array, n: number, last: ChunkKeys | undefined): ChunkKeys {
  if (columnForm(field.type) === 'string') {
    const strings = reader.stringChunk(t, field.ver, chunkNo, last?.strings ?? undefined);
    const values = last?.strings?.dict === strings.dict ? last.values : [null, ...strings.dict];
    return { codes: strings.codes, values, strings };
  }
  const column = reader.borrowNumericChunk(t, field.ver, chunkNo); // read before anything else is
  const codes = new Uint16Array(CHUNK_SIZE);
  const values: KeyValue[] = [null];
  const seen = new Map<number, number>();
  for (let i = 0; i < n; i++) {
    const at = ats[i]!;
    const v = column[at]!;
    if (Number.isNaN(v)) continue;
    let code = seen.get(v);
    if (code === undefined) seen.set(v, (code = values.push(v) - 1));
    codes[at] = code;
  }
  return { codes, values, strings: null };
}

/** A chunk's code tuples → group index (-1: not seen yet); a dense table unless the tuples are too many. */
class LocalGroups {
  private static readonly DENSE_MAX = 1 << 14;
  private readonly dense: Int32Array | null;
  private readonly sparse = new Map<number, number>();

  constructor(size: number) {
    this.dense = size <= LocalGroups.DENSE_MAX ? new Int32Array(size).fill(-1) : null;
  }

  /**
   * Sets `gids[i]` to the group of the candidate at `ats[i]`, whose slot is `codes0 * width + codes1`;
   * `resolve` names a slot's group the first time it is seen. The loop runs once per candidate, so it
   * is kept apart from the chunk's set-up, with everything it reads in locals (a closure's variables
   * are reloaded on every iteration).
   */
  assign(codes0: Uint16Array, codes1: Uint16Array, width: number, ats: Uint16Array, n: number, gids: Int32Array, resolve: (slot: number) => number): void {
    const dense = this.dense;
    const full = isWhole(n);
    if (dense === null) {
      for (let i = 0; i < n; i++) {
        const at = full ? i : ats[i]!;
        const slot = codes0[at]! * width + codes1[at]!;
        let g = this.sparse.get(slot);
        if (g === undefined) this.sparse.set(slot, (g = resolve(slot)));
        gids[i] = g;
      }
      return;
    }
    for (let i = 0; i < n; i++) {
      const at = full ? i : ats[i]!;
      const slot = codes0[at]! * width + codes1[at]!;
      let g = dense[slot]!;
      if (g < 0) dense[slot] = g = resolve(slot);
      gids[i] = g;
    }
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
 * (`count`), their sum, min and max, or the distinct values for count_distinct. Each chunk runs one loop
 * chosen by the aggregate's kind, so the per-document work is a few typed-array reads and writes.
 */
class AggregateColumn {
  private stats = newState(64);

  constructor(private readonly aggregate: CompiledAggregate) {}

  addChunk(reader: IndexReader, t: string, chunkNo: number, ats: Uint16Array, gids: Int32Array, n: number, groupCount: number): void {
    while (this.stats.count.length < groupCount) this.stats = grown(this.stats);
    const { field, op } = this.aggregate;
    if (field === null) {
      countAll(this.stats.count, gids, n);
    } else if (columnForm(field.type) === 'string') {
      const chunk = reader.stringChunk(t, field.ver, chunkNo);
      if (op === 'count_distinct') this.addDistinct(chunk.codes, (code) => (code === 0 ? null : chunk.dict[code - 1]!), ats, gids, n);
      else countPresent(this.stats.count, chunk.codes, ats, gids, n);
    } else {
      const column = reader.borrowNumericChunk(t, field.ver, chunkNo); // read before the next read
      if (op === 'count_distinct') this.addDistinct(column, (v) => (Number.isNaN(v) ? null : v), ats, gids, n);
      else if (op === 'min') addMin(this.stats, column, ats, gids, n);
      else if (op === 'max') addMax(this.stats, column, ats, gids, n);
      else addSums(this.stats, column, ats, gids, n);
    }
  }

  /** The state of the first `groupCount` groups, in arrays of their own. */
  state(groupCount: number): AggregateState {
    const { count, sum, min, max, distinct } = this.stats;
    return { count: count.slice(0, groupCount), sum: sum.slice(0, groupCount), min: min.slice(0, groupCount), max: max.slice(0, groupCount), distinct: distinct.slice(0, groupCount) };
  }

  private addDistinct<T extends Float64Array | Uint16Array>(column: T, valueOf: (raw: number) => string | number | null, ats: Uint16Array, gids: Int32Array, n: number): void {
    for (let i = 0; i < n; i++) {
      const v = valueOf(column[ats[i]!]!);
      if (v !== null) (this.stats.distinct[gids[i]!] ??= new Set()).add(v);
    }
  }
}

const newState = (size: number): AggregateState => ({
  count: new Float64Array(size),
  sum: new Float64Array(size),
  min: new Float64Array(size),
  max: new Float64Array(size),
  distinct: [],
});

function grown(state: AggregateState): AggregateState {
  const out = newState(state.count.length * 2);
  out.count.set(state.count);
  out.sum.set(state.sum);
  out.min.set(state.min);
  out.max.set(state.max);
  out.distinct = state.distinct;
  return out;
}

function countAll(count: Float64Array, gids: Int32Array, n: number): void {
  for (let i = 0; i < n; i++) count[gids[i]!]! += 1;
}

function countPresent(count: Float64Array, codes: Uint16Array, ats: Uint16Array, gids: Int32Array, n: number): void {
  const full = isWhole(n);
  for (let i = 0; i < n; i++) if (codes[full ? i : ats[i]!] !== 0) count[gids[i]!]! += 1;
}

/*
 * The per-document loops of numeric aggregates, one per op (count, sum and avg share one), so each does
 * only its own work: count of present values and the sum in document order (as the accumulator adds
 * them), or the minimum, or the maximum.
 */

function addSums({ count, sum }: AggregateState, column: Float64Array, ats: Uint16Array, gids: Int32Array, n: number): void {
  const full = isWhole(n);
  for (let i = 0; i < n; i++) {
    const v = column[full ? i : ats[i]!]!;
    if (v !== v) continue; // NaN: missing
    const g = gids[i]!;
    count[g]! += 1;
    sum[g]! += v;
  }
}

function addMin({ count, min }: AggregateState, column: Float64Array, ats: Uint16Array, gids: Int32Array, n: number): void {
  const full = isWhole(n);
  for (let i = 0; i < n; i++) {
    const v = column[full ? i : ats[i]!]!;
    if (v !== v) continue;
    const g = gids[i]!;
    if (count[g] === 0 || v < min[g]!) min[g] = v;
    count[g]! += 1;
  }
}

function addMax({ count, max }: AggregateState, column: Float64Array, ats: Uint16Array, gids: Int32Array, n: number): void {
  const full = isWhole(n);
  for (let i = 0; i < n; i++) {
    const v = column[full ? i : ats[i]!]!;
    if (v !== v) continue;
    const g = gids[i]!;
    if (count[g] === 0 || v > max[g]!) max[g] = v;
    count[g]! += 1;
  }
}
