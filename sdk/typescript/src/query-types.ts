import type { BodyOf } from './types.js';

/** A leaf of a structured-query filter: `{ field, op, value }` over a declared or built-in field. */
export interface FilterLeaf {
  field: string;
  op: 'eq' | 'neq' | 'in' | 'gt' | 'gte' | 'lt' | 'lte' | 'between' | 'exists' | 'contains' | 'prefix';
  value: string | number | boolean | readonly (string | number | boolean)[];
}

/** A structured-query filter: leaves combined by `and`, `or` and `not`. */
export type Filter = FilterLeaf | { and: Filter[] } | { or: Filter[] } | { not: Filter };

type QueryBody = BodyOf<'query'>;
export type Aggregate = NonNullable<QueryBody['aggregate']>[number];

/** Mode A: a page of documents, filtered and sorted. */
export type DocumentQuery = Omit<QueryBody, 'filter' | 'aggregate' | 'group_by' | 'partition'> & { filter?: Filter; aggregate?: undefined };

/** Mode B: groups and aggregates (`aggregate` selects it). */
export type GroupQuery = Omit<QueryBody, 'filter' | 'aggregate' | 'offset' | 'partition'> & { filter?: Filter; aggregate: Aggregate[] };
