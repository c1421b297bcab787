import { prototypeFree } from '../../domain/prototype-free.js';
import { GroupAccumulator, type GroupRow } from '../plan/aggregate.js';
import type { CompiledAggregate, CompiledQuery, DocValue, QueryCaps, ResolvedField } from '../plan/types.js';
import { toJsonValue } from '../schema/coerce.js';
import { valueAt } from '../storage/columns.js';
import { cardinality, splitInHalves, toArray, type DocSet } from '../storage/docset.js';
import { columnForm } from '../storage/layout.js';
import type { IndexReader } from '../storage/reader.js';
import { columnarApplies, columnarGroupRows, columnarPartial, mergePartials, partialRows, SPLIT_MIN } from './columnar-groups.js';
import type { GroupsHelper } from './parallel-groups.js';
import { candidates, type QueryContext } from './filter.js';

/** Groups of a groups query, in index form (datetime as ms, bool as 0/1), before the limit cuts them. */
export type GroupResult = { rows: Array<{ keys: DocValue[]; values: Array<number | null> }>; totalGroups: number; scanned: number };

/** A group as responses show it: keys by field name, aggregates by output name, values in JSON form. */
export interface GroupJson {
  keys: Record<string, JsonFieldValue | null>;
  aggregates: Record<string, JsonFieldValue | null>;
}
export type JsonFieldValue = ReturnType<typeof toJsonValue>;

/**
 * Runs a groups query (Mode B) over the candidates, in document-number order: on typed column chunks
 * (`columnar-groups.ts`), or, when a string_list field takes part, value by value through the
 * accumulator. More than `maxGroups` groups is a 400.
 */
export function groupRows(reader: IndexReader, ctx: QueryContext, query: GroupsMode, caps: QueryCaps): GroupResult {
  const matched = candidates(reader, ctx, query.filter, caps.maxScanned);
  return groupResult(query, rowsOver(reader, ctx.tenant, matched, query, caps.maxGroups), matched);
}

/**
 * `groupRows` with the helper thread: over at least SPLIT_MIN candidates, the helper gathers the later
 * half while this thread gathers the earlier one, and the halves merge as `columnarGroupRows` merges
 * them, so the answer is the same to the bit. The helper's half counts only when its snapshot holds the
 * same index generation as this thread's (no change to the tenant's indexes committed in between);
 * otherwise, or when the helper failed, the whole query runs again here, on `fresh()`'s snapshot.
 */
export async function groupRowsWithHelper(
  reader: IndexReader,
  ctx: QueryContext,
  query: GroupsMode,
  caps: QueryCaps,
  helper: GroupsHelper,
  fresh: () => IndexReader,
): Promise<GroupResult> {
  const matched = candidates(reader, ctx, query.filter, caps.maxScanned);
  const halves = columnarApplies(query.groupBy, query.aggregates) ? splitInHalves(matched, SPLIT_MIN) : null;
  if (!halves) return groupResult(query, rowsOver(reader, ctx.tenant, matched, query, caps.maxGroups), matched);
  const generation = reader.generation(ctx.tenant);
  const later = helper.gather({ t: ctx.tenant, docs: halves[1], query: { groupBy: query.groupBy, aggregates: query.aggregates }, maxGroups: caps.maxGroups });
  const earlier = columnarPartial(reader, ctx.tenant, halves[0], query, caps.maxGroups);
  const reply = await later;
  if ('error' in reply || reply.generation !== generation) {
    helper.outcomes['error' in reply ? 'failed' : 'changed']++;
    return groupRows(fresh(), ctx, query, caps);
  }
  helper.outcomes.used++;
  return groupResult(query, partialRows(mergePartials(earlier, reply.partial, query.groupBy.length, caps.maxGroups), query), matched);
}

type GroupsMode = Extract<CompiledQuery, { mode: 'groups' }>;

/** The candidates' rows: on column chunks when the columnar path applies, else through the accumulator. */
function rowsOver(reader: IndexReader, t: string, matched: DocSet, query: GroupsMode, maxGroups: number): GroupRow[] {
  return columnarApplies(query.groupBy, query.aggregates) ? columnarGroupRows(reader, t, matched, query, maxGroups) : accumulatedRows(reader, t, toArray(matched), query, maxGroups);
}

const groupResult = (query: GroupsMode, rows: GroupRow[], matched: DocSet): GroupResult => ({ rows: rows.slice(0, query.limit), totalGroups: rows.length, scanned: cardinality(matched) });

/** The reference path: every candidate's values gathered, then fed to the accumulator one document at a time. */
export function accumulatedRows(reader: IndexReader, t: string, docs: Uint32Array, query: Extract<CompiledQuery, { mode: 'groups' }>, maxGroups: number): GroupRow[] {
  const columns = (fields: Array<ResolvedField | null>) =>
    fields.map((f) => {
      if (f === null) return null;
      const form = columnForm(f.type);
      return form === 'numeric' ? reader.numericColumn(t, f.ver, docs) : reader.stringColumn(t, f.ver, form, docs);
    });
  const keyCols = columns(query.groupBy);
  const aggCols = columns(query.aggregates.map((a) => a.field));
  const acc = new GroupAccumulator(query.groupBy, query.aggregates, maxGroups);
  const keys: DocValue[] = new Array(keyCols.length);
  const values: DocValue[] = new Array(aggCols.length);
  for (let i = 0; i < docs.length; i++) {
    for (let k = 0; k < keyCols.length; k++) keys[k] = valueAt(keyCols[k]!, i);
    for (let k = 0; k < aggCols.length; k++) values[k] = aggCols[k] === null ? null : valueAt(aggCols[k]!, i);
    acc.add(keys, values);
  }
  return acc.rows(query.sort);
}

/** Group rows in JSON form; min and max of a datetime field read as timestamps, like the field. */
export function groupsJson(rows: GroupResult['rows'], groupBy: ResolvedField[], aggregates: CompiledAggregate[]): GroupJson[] {
  const value = (v: DocValue, field: ResolvedField | null) => (v === null || field === null ? v : toJsonValue(v, field.type));
  return rows.map((row) => ({
    keys: prototypeFree(groupBy.map((f, i) => [f.name, value(row.keys[i] ?? null, f)])),
    aggregates: prototypeFree(
      aggregates.map((a, i) => [a.as, (a.op === 'min' || a.op === 'max') && a.field?.type === 'datetime' ? value(row.values[i] ?? null, a.field) : (row.values[i] ?? null)]),
    ),
  }));
}
