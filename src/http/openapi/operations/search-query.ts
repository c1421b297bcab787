import { z } from 'zod';
import { FieldNameSchema, SchemaPutBodySchema, SchemaQuerySchema } from '../../schemas/schema.js';
import { QueryBodySchema, QueryQuerySchema } from '../../schemas/query.js';
import { BatchSearchBodySchema, EmbedSearchBodySchema, OwnerSearchQuerySchema, SearchQuerySchema } from '../../schemas/search.js';
import {
  BatchSearchResultsSchema,
  EmbedSearchResultsSchema,
  FieldListSchema,
  QueryResultSchema,
  SearchResultsSchema,
} from '../../schemas/responses.js';
import type { Operation } from '../operation.js';

/** Search within one owner; field schema and structured queries, tenant-wide or per partition. */
export const searchAndQueryOperations: Operation[] = [
  {
    method: 'get',
    path: '/v1/search',
    operationId: 'search',
    tag: 'search',
    summary: 'Search an owner\'s memory',
    description: 'Hybrid (default), semantic or lexical; `score` is 0-100 and every hit carries its cosine `distance`.',
    query: SearchQuerySchema,
    success: { status: 200, description: 'The hits, best first.', schema: SearchResultsSchema },
  },
  {
    method: 'post',
    path: '/v1/search/embed',
    operationId: 'searchByVector',
    tag: 'search',
    summary: 'Search by a caller\'s embedding',
    description: 'The vector must have the index\'s dimension.',
    query: OwnerSearchQuerySchema,
    body: { schema: EmbedSearchBodySchema },
    success: { status: 200, description: 'The hits, best first.', schema: EmbedSearchResultsSchema },
  },
  {
    method: 'post',
    path: '/v1/search/batch',
    operationId: 'searchBatch',
    tag: 'search',
    summary: 'Run up to 32 searches at once',
    query: OwnerSearchQuerySchema,
    body: { schema: BatchSearchBodySchema },
    success: { status: 200, description: 'One list of hits per query, in order.', schema: BatchSearchResultsSchema },
  },
  {
    method: 'put',
    path: '/v1/schema/fields',
    operationId: 'declareFields',
    tag: 'schema',
    summary: 'Declare fields',
    description: 'Upserts by name; a changed definition is re-backfilled in a durable job. Answers the whole declared set.',
    query: SchemaQuerySchema,
    body: { schema: SchemaPutBodySchema },
    success: { status: 200, description: 'Every declared field.', schema: FieldListSchema },
  },
  {
    method: 'get',
    path: '/v1/schema/fields',
    operationId: 'listFields',
    tag: 'schema',
    summary: 'List declared fields',
    query: SchemaQuerySchema,
    success: { status: 200, description: 'Every declared field, with coverage and backfill state.', schema: FieldListSchema },
  },
  {
    method: 'delete',
    path: '/v1/schema/fields/:name',
    operationId: 'removeField',
    tag: 'schema',
    summary: 'Remove a declared field',
    query: SchemaQuerySchema,
    params: z.object({ name: FieldNameSchema }),
    success: { status: 200, description: 'The fields still declared.', schema: FieldListSchema },
    errors: [404],
  },
  {
    method: 'post',
    path: '/v1/query',
    operationId: 'query',
    tag: 'query',
    summary: 'Run a structured query',
    description: 'Mode A (without `aggregate`): a page of documents, `offset`/`limit` with `has_more`. Mode B (with `aggregate`): groups.',
    query: QueryQuerySchema,
    body: { schema: QueryBodySchema },
    success: { status: 200, description: 'Documents (Mode A) or groups (Mode B).', schema: QueryResultSchema },
  },
];
