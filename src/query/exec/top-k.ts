import { compareWithMissingLast } from '../plan/compare.js';
import type { CompiledQuery, FieldResolver, SortKey } from '../plan/types.js';
import { valueAt } from '../storage/columns.js';
import { and, andNot, cardinality, forEachInContainer, segmentHas, toArray, type DocSet } from '../storage/docset.js';
import { columnForm, hasPostings, mayBeCut } from '../storage/layout.js';
import { bestByColumn } from './column-top-k.js';
import type { IndexReader } from '../storage/reader.js';
import { candidates, type QueryContext } from './filter.js';
import { MaxHeap } from './heap.js';

/** One page of a documents query: document numbers in sort order, and how many matched in all. */
export type DocumentPage = { docNos: number[]; total: number };

const DEFAULT_SORT = (resolve: FieldResolver): SortKey[] => [{ field: resolve('created_at')!, dir: 'desc' }];

/** Runs a documents query (Mode A): candidates, then the page `offset .. offset + limit` in sort order. */
export function documentPage(
  reader: IndexReader,
  ctx: QueryContext,
  query: Extract<CompiledQuery, { mode: 'documents' }>,
  resolve: FieldResolver,
  maxScanned: number,
): DocumentPage {
  const matched = candidates(reader, ctx, query.filter, maxScanned);
  const total = cardinality(matched);
  const sort = query.sort.length > 0 ? query.sort : DEFAULT_SORT(resolve);
  const want = query.offset + query.limit;
  if (query.offset >= total) return { docNos: [], total };
  const ordered = new TopK(reader, ctx.tenant, sort, want).walk(matched, total) ?? new TopK(reader, ctx.tenant, sort, want).select(matched);
  return { docNos: ordered.slice(query.offset, want), total };
}

/**
 * The first `want` documents in sort order (keys with missing last, then doc_id ascending).
 * `walk` follows the first sort key's ordered postings and stops once enough documents are found:
 * cheap when many documents match (a key kept without postings visits its column's chunks best zone
 * first instead: `column-top-k.ts`). `select` reads the sort columns of every candidate and keeps the
 * best `want` in a heap: cheap when few match. `walk` gives up (null) past a budget of entries.
 */
class TopK {
  constructor(
    private readonly reader: IndexReader,
    private readonly t: string,
    private readonly sort: SortKey[],
    private readonly want: number,
  ) {}

  walk(matched: DocSet, total: number): number[] | null {
    const first = this.sort[0]!;
    if (!hasPostings(first.field.ver)) {
      const best = bestByColumn(this.reader, this.t, first, matched, this.want);
      return best && this.orderTies(best, 0, undefined).slice(0, this.want);
    }
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
      forEachInContainer(entry.seg, entry.bytes, (docNo) => {
        if (segmentHas(words, docNo)) group.push(docNo);
      });
    }
    flush();
    if (out.length >= this.want) return out;
    const missing = toArray(andNot(matched, exists));
    return out.concat(this.orderTies(Array.from(missing), 1, undefined));
  }

  select(matched: DocSet): number[] {
    const docs = toArray(matched);
    const cols = this.sort.map((s) => {
      const form = columnForm(s.field.type);
      return form === 'numeric' ? this.reader.numericColumn(this.t, s.field.ver, docs) : this.reader.stringColumn(this.t, s.field.ver, form, docs);
    });
    const cmp = (i: number, j: number): number => {
      for (let k = 0; k < cols.length; k++) {
        const c = compareWithMissingLast(valueAt(cols[k]!, i) as string | number | null, valueAt(cols[k]!, j) as string | number | null, this.sort[k]!.dir);
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
    if (value !== undefined && mayBeCut(value)) keys.unshift(this.sort[0]!);
    docs.sort((a, b) => {
      for (const k of keys) {
        const form = columnForm(k.field.type);
        const c = compareWithMissingLast(
          this.reader.value(this.t, k.field.ver, form, a) as string | number | null,
          this.reader.value(this.t, k.field.ver, form, b) as string | number | null,
          k.dir,
        );
        if (c !== 0) return c;
      }
      return compareDocIds(this.docId(a), this.docId(b));
    });
    return docs;
  }

  private docId(docNo: number): string {
    return (this.reader.value(this.t, 'b.doc_id', 'string', docNo) as string | null) ?? '';
  }
}

function compareDocIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
