import { invalidInput } from '../../errors.js';
import { compileFilter } from './filter.js';
import type { AggregateOp, CompiledAggregate, CompiledQuery, FieldResolver, GroupSortKey, ResolvedField, SortKey } from './types.js';

export const MODE_A_LIMIT_DEFAULT = 100;
export const MODE_A_LIMIT_MAX = 1000;
export const MAX_GROUP_BY = 2;
export const MAX_AGGREGATES = 32;

/** The body of `POST /v1/query` once its shape is checked (zod); fields are still names here. */
export interface QueryRequest {
  filter?: unknown;
  sort?: Array<{ by: string; dir?: 'asc' | 'desc' | undefined }> | undefined;
  limit?: number | undefined;
  offset?: number | undefined;
  group_by?: string[] | undefined;
  aggregate?: Array<{ op: AggregateOp; field?: string | undefined; as?: string | undefined }> | undefined;
}

const NUMERIC_ONLY: AggregateOp[] = ['sum', 'avg'];
const ORDERED_ONLY: AggregateOp[] = ['min', 'max'];

/**
 * Resolves names against the declared and built-in fields and checks every rule that does not need
 * data. `maxGroups` bounds Mode B's `limit` (it defaults to the cap).
 */
export function compileQuery(request: QueryRequest, resolve: FieldResolver, maxGroups: number): CompiledQuery {
  const filter = request.filter === undefined ? null : compileFilter(request.filter, resolve);
  if (request.aggregate === undefined) {
    if (request.group_by !== undefined) throw invalidInput('group_by requires aggregate (Mode B); omit group_by for a document page');
    const limit = request.limit ?? MODE_A_LIMIT_DEFAULT;
    if (limit < 1 || limit > MODE_A_LIMIT_MAX) throw invalidInput(`limit must be between 1 and ${MODE_A_LIMIT_MAX} for a document page, got ${limit}`);
    return { mode: 'documents', filter, sort: (request.sort ?? []).map((s, i) => sortKey(s, i, resolve)), limit, offset: request.offset ?? 0 };
  }
  if (request.offset !== undefined) throw invalidInput('offset applies to document pages only (Mode A); Mode B returns groups up to limit');
  const groupBy = (request.group_by ?? []).map((name, i) => {
    const field = resolve(name);
    if (!field) throw invalidInput(`group_by[${i}]: unknown field "${name}" (not declared, not built-in)`);
    return field;
  });
  if (groupBy.length > MAX_GROUP_BY) throw invalidInput(`group_by takes at most ${MAX_GROUP_BY} fields, got ${groupBy.length}`);
  if (groupBy.length === 2 && groupBy[0]!.name === groupBy[1]!.name) throw invalidInput(`group_by names field "${groupBy[0]!.name}" twice`);
  if (request.aggregate.length === 0 || request.aggregate.length > MAX_AGGREGATES) {
    throw invalidInput(`aggregate must hold 1 to ${MAX_AGGREGATES} operations`);
  }
  const aggregates = request.aggregate.map((a, i) => aggregate(a, i, resolve));
  const outputs = new Set<string>();
  for (const [i, a] of aggregates.entries()) {
    if (outputs.has(a.as)) throw invalidInput(`aggregate[${i}].as "${a.as}" is used twice; give each output its own name`);
    outputs.add(a.as);
  }
  const sort = (request.sort ?? []).map((s, i) => groupSortKey(s, i, groupBy, aggregates));
  const limit = request.limit ?? maxGroups;
  if (limit < 1 || limit > maxGroups) throw invalidInput(`limit must be between 1 and ${maxGroups} groups, got ${limit}`);
  return { mode: 'groups', filter, groupBy, aggregates, sort, limit };
}

function sortKey(s: { by: string; dir?: 'asc' | 'desc' | undefined }, i: number, resolve: FieldResolver): SortKey {
  const field = resolve(s.by);
  if (!field) throw invalidInput(`sort[${i}].by: unknown field "${s.by}" (not declared, not built-in)`);
  if (field.type === 'string_list') throw invalidInput(`sort[${i}].by: field "${s.by}" is a string_list and cannot be sorted on`);
  return { field, dir: s.dir ?? 'asc' };
}

function aggregate(a: { op: AggregateOp; field?: string | undefined; as?: string | undefined }, i: number, resolve: FieldResolver): CompiledAggregate {
  let field: ResolvedField | null = null;
  if (a.field !== undefined) {
    field = resolve(a.field) ?? null;
    if (!field) throw invalidInput(`aggregate[${i}].field: unknown field "${a.field}" (not declared, not built-in)`);
  } else if (a.op !== 'count') {
    throw invalidInput(`aggregate[${i}].field is required for ${a.op}`);
  }
  if (field && NUMERIC_ONLY.includes(a.op) && field.type !== 'int' && field.type !== 'float') {
    throw invalidInput(`aggregate[${i}]: ${a.op} needs an int or float field; field "${field.name}" is ${field.type}`);
  }
  if (field && ORDERED_ONLY.includes(a.op) && field.type !== 'int' && field.type !== 'float' && field.type !== 'datetime') {
    throw invalidInput(`aggregate[${i}]: ${a.op} needs an int, float or datetime field; field "${field.name}" is ${field.type}`);
  }
  return { op: a.op, field, as: a.as ?? (field ? `${a.op}_${field.name}` : a.op) };
}

function groupSortKey(
  s: { by: string; dir?: 'asc' | 'desc' | undefined },
  i: number,
  groupBy: ResolvedField[],
  aggregates: CompiledAggregate[],
): GroupSortKey {
  const dir = s.dir ?? 'asc';
  const agg = aggregates.findIndex((a) => a.as === s.by);
  if (agg >= 0) return { by: s.by, target: { kind: 'aggregate', index: agg }, dir };
  const key = groupBy.findIndex((f) => f.name === s.by);
  if (key >= 0) return { by: s.by, target: { kind: 'key', index: key }, dir };
  throw invalidInput(`sort[${i}].by "${s.by}" must name a group_by field or an aggregate output (${[...groupBy.map((f) => f.name), ...aggregates.map((a) => a.as)].join(', ')})`);
}
