import { invalidInput } from '../../errors.js';
import { compareScalars, compareWithMissingLast } from './compare.js';
import type { CompiledAggregate, DocValue, GroupSortKey, ResolvedField } from './types.js';

type Key = string | number | null;

/** Running state of one aggregate in one group. Sums run in document-number order (floating point). */
interface Acc {
  count: number;
  sum: number;
  min: number | null;
  max: number | null;
  distinct: Set<string | number> | null;
}

export interface Group {
  keys: Key[];
  accs: Acc[];
}

export interface GroupRow {
  keys: Key[];
  values: Array<number | null>;
}

/**
 * Groups documents and accumulates aggregates. Pure: the caller feeds documents in a fixed order with
 * their values per field version. A document missing a group_by field joins the `null` group; a
 * string_list field puts it in one group per element. Exceeding `maxGroups` is a 400.
 */
export class GroupAccumulator {
  private readonly groups = new Map<Key, Map<Key, Group>>();
  private size = 0;

  constructor(
    private readonly groupBy: ResolvedField[],
    private readonly aggregates: CompiledAggregate[],
    private readonly maxGroups: number,
  ) {}

  add(keyValues: DocValue[], aggValues: DocValue[]): void {
    const first = expand(keyValues[0] ?? null);
    const second = this.groupBy.length > 1 ? expand(keyValues[1] ?? null) : [null];
    for (const k1 of first) {
      let inner = this.groups.get(k1);
      if (!inner) this.groups.set(k1, (inner = new Map()));
      for (const k2 of second) {
        let group = inner.get(k2);
        if (!group) {
          if (++this.size > this.maxGroups) throw groupCapExceeded(this.maxGroups);
          group = { keys: this.groupBy.length === 0 ? [] : this.groupBy.length === 1 ? [k1] : [k1, k2], accs: this.aggregates.map(newAcc) };
          inner.set(k2, group);
        }
        for (let i = 0; i < this.aggregates.length; i++) accumulate(group.accs[i]!, this.aggregates[i]!, aggValues[i] ?? null);
      }
    }
  }

  /** Rows sorted by the sort keys, then by the group keys ascending (missing last), so output is stable. */
  rows(sort: GroupSortKey[]): GroupRow[] {
    const rows: GroupRow[] = [];
    for (const inner of this.groups.values()) {
      for (const g of inner.values()) rows.push({ keys: g.keys, values: g.accs.map((acc, i) => result(acc, this.aggregates[i]!)) });
    }
    return finishGroupRows(rows, this.groupBy.length, this.aggregates, sort);
  }
}

/** The 400 for a query with more than `maxGroups` groups. */
export function groupCapExceeded(maxGroups: number): Error {
  return invalidInput(`query produces more than ${maxGroups} groups (the group cap); narrow the filter, group by fewer fields or add a partition`);
}

/**
 * Accumulated rows as answers show them: without group_by there is always one row (of empty aggregates
 * when no document matched); rows sort by the sort keys, then by the group keys ascending (missing last).
 */
export function finishGroupRows(rows: GroupRow[], groupByCount: number, aggregates: CompiledAggregate[], sort: GroupSortKey[]): GroupRow[] {
  if (groupByCount === 0 && rows.length === 0) rows.push({ keys: [], values: aggregates.map((a) => result(newAcc(), a)) });
  rows.sort((a, b) => {
    for (const s of sort) {
      const x = s.target.kind === 'key' ? a.keys[s.target.index]! : a.values[s.target.index]!;
      const y = s.target.kind === 'key' ? b.keys[s.target.index]! : b.values[s.target.index]!;
      const c = compareWithMissingLast(x, y, s.dir);
      if (c !== 0) return c;
    }
    for (let i = 0; i < a.keys.length; i++) {
      const c = compareWithMissingLast(a.keys[i]!, b.keys[i]!, 'asc');
      if (c !== 0) return c;
    }
    return 0;
  });
  return rows;
}

function expand(value: DocValue): Key[] {
  if (value === null) return [null];
  return Array.isArray(value) ? value : [value];
}

function newAcc(a?: CompiledAggregate): Acc {
  return { count: 0, sum: 0, min: null, max: null, distinct: a?.op === 'count_distinct' ? new Set() : null };
}

function accumulate(acc: Acc, a: CompiledAggregate, value: DocValue): void {
  if (a.field === null) {
    acc.count += 1;
    return;
  }
  if (value === null) return;
  switch (a.op) {
    case 'count':
      acc.count += 1;
      return;
    case 'count_distinct':
      (acc.distinct ??= new Set());
      if (Array.isArray(value)) for (const v of value) acc.distinct.add(v);
      else acc.distinct.add(value);
      return;
    default: {
      const n = value as number;
      acc.count += 1;
      acc.sum += n;
      if (acc.min === null || compareScalars(n, acc.min) < 0) acc.min = n;
      if (acc.max === null || compareScalars(n, acc.max) > 0) acc.max = n;
    }
  }
}

/** count and count_distinct are 0 for an empty group; sum, avg, min and max are null without values. */
function result(acc: Acc, a: CompiledAggregate): number | null {
  switch (a.op) {
    case 'count':
      return acc.count;
    case 'count_distinct':
      return acc.distinct?.size ?? 0;
    case 'sum':
      return acc.count === 0 ? null : acc.sum;
    case 'avg':
      return acc.count === 0 ? null : acc.sum / acc.count;
    case 'min':
      return acc.min;
    case 'max':
      return acc.max;
  }
}
