import { GroupAccumulator } from '../plan/aggregate.js';
import { compareWithMissingLast } from '../plan/compare.js';
import type { CompiledQuery, DocValue, QueryCaps, ResolvedField, SortKey } from '../plan/types.js';
import { invalidInput } from '../../errors.js';
import { and, andNot, cardinality, toArray, type DocSet } from '../storage/docset.js';
import { evaluateFilter } from './filter.js';
import { READERS_VER } from '../storage/writer.js';
import { FieldReader } from '../storage/reader.js';
import { isNumericType, KEY_STR_MAX, type FieldDb } from '../storage/layout.js';

export interface QueryContext {
  tenant: string;
  partition: string | null;
  principal: string;
}

export type DocumentPage = { docNos: number[]; total: number };
export type GroupResult = { rows: Array<{ keys: DocValue[]; values: Array<number | null> }>; totalGroups: number; scanned: number };

const DEFAULT_SORT = (resolve: (name: string) => ResolvedField | undefined): SortKey[] => [{ field: resolve('created_at')!, dir: 'desc' }];

/**
 * Runs compiled queries over the field indexes. Candidates are the live documents of the tenant, in
 * the partition when one is given, that the principal may read; the filter narrows them with postings.
 */
export class FieldQueryEngine {
  constructor(
    private readonly db: FieldDb,
    private readonly caps: QueryCaps,
  ) {}

  candidates(reader: FieldReader, ctx: QueryContext, query: CompiledQuery): DocSet {
    let universe = reader.liveSet(ctx.tenant);
    if (ctx.partition !== null) universe = and(universe, reader.posting(ctx.tenant, 'b.partition', ctx.partition));
    const restricted = reader.set(ctx.tenant, READERS_VER, 'e');
    if (restricted.size > 0) universe = andNot(universe, andNot(restricted, reader.posting(ctx.tenant, READERS_VER, ctx.principal)));
    const matched = query.filter ? evaluateFilter(reader, ctx.tenant, query.filter, universe) : universe;
    const n = cardinality(matched);
    if (n > this.caps.maxScanned) {
      throw invalidInput(`query matches ${n} documents, more than the candidate-scan cap of ${this.caps.maxScanned}; narrow the filter or add a partition`);
    }
    return matched;
  }

  documents(ctx: QueryContext, query: Extract<CompiledQuery, { mode: 'documents' }>, resolve: (name: string) => ResolvedField | undefined, reader = new FieldReader(this.db)): DocumentPage {
    const matched = this.candidates(reader, ctx, query);
    const total = cardinality(matched);
    const sort = query.sort.length > 0 ? query.sort : DEFAULT_SORT(resolve);
    const want = query.offset + query.limit;
    if (query.offset >= total) return { docNos: [], total };
    const ordered = new TopK(reader, ctx.tenant, sort, want).walk(matched, total) ?? new TopK(reader, ctx.tenant, sort, want).select(matched);
    return { docNos: ordered.slice(query.offset, want), total };
  }

  groups(ctx: QueryContext, query: Extract<CompiledQuery, { mode: 'groups' }>, reader = new FieldReader(this.db)): GroupResult {
    const matched = this.candidates(reader, ctx, query);
    const docs = toArray(matched);
    const columns = (fields: Array<ResolvedField | null>) =>
      fields.map((f) => (f === null ? null : isNumericType(f.type) ? reader.numericColumn(ctx.tenant, f.ver, docs) : reader.stringColumn(ctx.tenant, f.ver, docs)));
    const keyCols = columns(query.groupBy);
    const aggCols = columns(query.aggregates.map((a) => a.field));
    const acc = new GroupAccumulator(query.groupBy, query.aggregates, this.caps.maxGroups);
    const keys: DocValue[] = new Array(keyCols.length);
    const values: DocValue[] = new Array(aggCols.length);
    for (let i = 0; i < docs.length; i++) {
      for (let k = 0; k < keyCols.length; k++) keys[k] = at(keyCols[k]!, i);
      for (let k = 0; k < aggCols.length; k++) values[k] = aggCols[k] === null ? null : at(aggCols[k]!, i);
      acc.add(keys, values);
    }
    const rows = acc.rows(query.sort);
    return { rows: rows.slice(0, query.limit), totalGroups: rows.length, scanned: docs.length };
  }
}

function at(column: Float64Array | DocValue[], i: number): DocValue {
  if (column instanceof Float64Array) {
    const n = column[i]!;
    return Number.isNaN(n) ? null : n;
  }
  return column[i] ?? null;
}

/**
 * The first `want` documents in sort order (keys with missing last, then doc_id ascending).
 * `walk` follows the first sort key's ordered postings and stops once enough documents are found:
 * cheap when many documents match. `select` reads the sort columns of every candidate and keeps the
 * best `want` in a heap: cheap when few match. `walk` gives up (null) past a budget of entries.
 */
class TopK {
  constructor(
    private readonly reader: FieldReader,
    private readonly t: string,
    private readonly sort: SortKey[],
    private readonly want: number,
  ) {}

  walk(matched: DocSet, total: number): number[] | null {
    const first = this.sort[0]!;
    const exists = this.reader.set(this.t, first.field.ver, 'e');
    const present = and(matched, exists);
    const presentCount = cardinality(present);
    const entries = cardinality(exists);
    // Expected entries walked before `want` hits, if matches spread evenly; walk only when far below a full read.
    const expected = (this.want * entries) / Math.max(presentCount, 1);
    if (presentCount === 0 || expected * 8 > total) return null;
    const budget = expected * 4 + 256;
    const out: number[] = [];
    let walked = 0;
    let group: number[] = [];
    let groupValue: string | number | undefined;
    const flush = () => {
      out.push(...this.orderTies(group, 1, groupValue));
      group = [];
    };
    for (const entry of this.reader.postings(this.t, first.field.ver, { reverse: first.dir === 'desc' })) {
      if (entry.value !== groupValue) {
        flush();
        if (out.length >= this.want) return out;
        groupValue = entry.value;
      }
      if (++walked > budget) return null;
      const words = present.get(entry.seg);
      if (!words) continue;
      const base = entry.seg << 16;
      forEachContainer(entry.bytes, (low) => {
        if ((words[low >>> 5]! & (1 << (low & 31))) !== 0) group.push(base | low);
      });
    }
    flush();
    if (out.length >= this.want) return out;
    const missing = toArray(andNot(matched, exists));
    return out.concat(this.orderTies(Array.from(missing), 1, undefined));
  }

  select(matched: DocSet): number[] {
    const docs = toArray(matched);
    const cols = this.sort.map((s) => (isNumericType(s.field.type) ? this.reader.numericColumn(this.t, s.field.ver, docs) : this.reader.stringColumn(this.t, s.field.ver, docs)));
    const cmp = (i: number, j: number): number => {
      for (let k = 0; k < cols.length; k++) {
        const c = compareWithMissingLast(at(cols[k]!, i) as string | number | null, at(cols[k]!, j) as string | number | null, this.sort[k]!.dir);
        if (c !== 0) return c;
      }
      return compareDocIds(this.docId(docs[i]!), this.docId(docs[j]!));
    };
    const heap = new MaxHeap(cmp);
    for (let i = 0; i < docs.length; i++) {
      if (heap.size < this.want) heap.push(i);
      else if (cmp(i, heap.top()) < 0) heap.replaceTop(i);
    }
    return heap.drain().sort(cmp).map((i) => docs[i]!);
  }

  /** Orders documents that tie on the first `from` keys by the remaining keys, then doc_id. */
  private orderTies(docs: number[], from: number, value: string | number | undefined): number[] {
    if (docs.length <= 1) return docs;
    const keys = [...this.sort.slice(from)];
    // A shortened key value groups several values: order them by the full value first.
    if (typeof value === 'string' && value.length >= KEY_STR_MAX) keys.unshift(this.sort[0]!);
    docs.sort((a, b) => {
      for (const k of keys) {
        const numeric = isNumericType(k.field.type);
        const c = compareWithMissingLast(
          this.reader.value(this.t, k.field.ver, numeric, a) as string | number | null,
          this.reader.value(this.t, k.field.ver, numeric, b) as string | number | null,
          k.dir,
        );
        if (c !== 0) return c;
      }
      return compareDocIds(this.docId(a), this.docId(b));
    });
    return docs;
  }

  private docId(docNo: number): string {
    return (this.reader.value(this.t, 'b.doc_id', false, docNo) as string | null) ?? '';
  }
}

function compareDocIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function forEachContainer(bytes: Uint8Array, fn: (low: number) => void): void {
  if (bytes.byteLength === 8192) {
    const words = new Uint32Array(new Uint8Array(bytes).buffer);
    for (let w = 0; w < words.length; w++) {
      let word = words[w]!;
      while (word !== 0) {
        fn((w << 5) | (31 - Math.clz32(word & -word)));
        word &= word - 1;
      }
    }
    return;
  }
  for (let i = 0; i + 1 < bytes.byteLength; i += 2) fn(bytes[i]! | (bytes[i + 1]! << 8));
}

/** A binary max-heap of candidate indexes under `cmp` (the worst kept candidate on top). */
class MaxHeap {
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

