import type { FieldType, IndexValue } from '../schema/types.js';

export const FILTER_OPS = ['eq', 'neq', 'in', 'gt', 'gte', 'lt', 'lte', 'between', 'exists', 'contains', 'prefix'] as const;
export type FilterOp = (typeof FILTER_OPS)[number];
export type RangeOp = 'gt' | 'gte' | 'lt' | 'lte' | 'between';

export const AGGREGATE_OPS = ['count', 'count_distinct', 'sum', 'avg', 'min', 'max'] as const;
export type AggregateOp = (typeof AGGREGATE_OPS)[number];

/** A field as a query sees it: its name, type and the index version that holds its values. */
export interface ResolvedField {
  name: string;
  type: FieldType;
  /** Index version id (`b.<name>` for built-ins). */
  ver: string;
}

export type FieldResolver = (name: string) => ResolvedField | undefined;

/** A validated filter: literals already converted to index values (datetime → ms, bool → 0/1). */
export type CompiledFilter =
  | { kind: 'and'; items: CompiledFilter[] }
  | { kind: 'or'; items: CompiledFilter[] }
  | { kind: 'not'; item: CompiledFilter }
  | { kind: 'leaf'; field: ResolvedField; op: 'eq' | 'neq' | 'contains' | 'prefix'; value: string | number }
  | { kind: 'leaf'; field: ResolvedField; op: 'in'; value: Array<string | number> }
  | { kind: 'leaf'; field: ResolvedField; op: 'gt' | 'gte' | 'lt' | 'lte'; value: string | number }
  | { kind: 'leaf'; field: ResolvedField; op: 'between'; value: [string | number, string | number] }
  | { kind: 'leaf'; field: ResolvedField; op: 'exists'; value: boolean };

export type CompiledLeaf = Extract<CompiledFilter, { kind: 'leaf' }>;

export interface SortKey {
  field: ResolvedField;
  dir: 'asc' | 'desc';
}

export interface CompiledAggregate {
  op: AggregateOp;
  field: ResolvedField | null;
  as: string;
}

export interface GroupSortKey {
  /** A group_by field name or an aggregate output name. */
  by: string;
  target: { kind: 'key'; index: number } | { kind: 'aggregate'; index: number };
  dir: 'asc' | 'desc';
}

export type CompiledQuery =
  | { mode: 'documents'; filter: CompiledFilter | null; sort: SortKey[]; limit: number; offset: number }
  | {
      mode: 'groups';
      filter: CompiledFilter | null;
      groupBy: ResolvedField[];
      aggregates: CompiledAggregate[];
      sort: GroupSortKey[];
      limit: number;
    };

/** A value a document holds for a field, or null when missing (absent, null, not coercible, empty list). */
export type DocValue = IndexValue | null;

export interface QueryCaps {
  maxGroups: number;
  maxScanned: number;
}
