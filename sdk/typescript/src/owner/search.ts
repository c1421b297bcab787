import type { BatchSearchResults, BodyOf, EmbedSearchResults, OwnerParams, RequestOptions, SearchResults } from '../types.js';
import type { OwnerContext } from './context.js';

export type SearchParams = Omit<OwnerParams<'search'>, 'q'>;
export type VectorSearchParams = Omit<BodyOf<'searchByVector'>, 'vector'>;
export type BatchQuery = BodyOf<'searchBatch'>['queries'][number];

/** Hybrid, semantic and lexical search over an owner's documents and media. */
export class Search {
  constructor(private readonly ctx: OwnerContext) {}

  /** Searches with every parameter of `GET /v1/search`; the answer says which mode answered. */
  query(q: string, params: SearchParams = {}, options?: RequestOptions): Promise<SearchResults> {
    return this.ctx.transport.json({ operationId: 'search', method: 'GET', path: '/v1/search', query: this.ctx.query({ ...params, q }), options });
  }

  /** Searches by a vector of the index's dimension (your own embedding of the query). */
  byVector(vector: number[], params: VectorSearchParams = {}, options?: RequestOptions): Promise<EmbedSearchResults> {
    return this.ctx.transport.json({ operationId: 'searchByVector', method: 'POST', path: '/v1/search/embed', query: this.ctx.query(), json: { ...params, vector }, options });
  }

  /** Up to 32 searches in one call; results in the order of the queries. */
  batch(queries: BatchQuery[], options?: RequestOptions): Promise<BatchSearchResults> {
    return this.ctx.transport.json({ operationId: 'searchBatch', method: 'POST', path: '/v1/search/batch', query: this.ctx.query(), json: { queries }, options });
  }
}

