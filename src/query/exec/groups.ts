import { prototypeFree } from '../../domain/prototype-free.js';
import { GroupAccumulator, type GroupRow } from '../plan/aggregate.js';
import type { CompiledAggregate, CompiledQuery, DocValue, ResolvedField } from '../plan/types.js';
import { toJsonValue } from '../schema/coerce.js';
import { valueAt } from '../storage/columns.js';
import { cardinality, toArray } from '../storage/docset.js';
import { columnForm } from '../storage/layout.js';
import type { IndexReader } from '../storage/reader.js';
import { columnarApplies, columnarGroupRows } from './columnar-groups.js';
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
export function groupRows(reader: IndexReader, ctx: QueryContext, query: Extract<CompiledQuery, { mode: 'groups' }>, caps: { maxGroups: number; maxScanned: number }): GroupResult {
  const matched = candidates(reader, ctx, query.filter, caps.maxScanned);
  const rows = columnarApplies(query.groupBy, query.aggregates)
    ? columnarGroupRows(reader, ctx.tenant, matched, query, caps.maxGroups)
    : accumulatedRows(reader, ctx.tenant, toArray(matched), query, caps.maxGroups);
  return { rows: rows.slice(0, query.limit), totalGroups: rows.length, scanned: cardinality(matched) };
}

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
