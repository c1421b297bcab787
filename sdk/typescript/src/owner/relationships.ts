import { followCursors } from '../pagination.js';
import type { BodyOf, OwnerParams, Relationship, RelationshipList, RequestOptions, WriteOptions } from '../types.js';
import { type OwnerContext, seg } from './context.js';

/** Filters of the relationship list, and the cursor of a page. */
export type RelationshipListParams = OwnerParams<'listRelationships'>;

/** The directed, typed edges of an owner's graph. */
export class Relationships {
  constructor(private readonly ctx: OwnerContext) {}

  /** Creates an edge, or updates the attributes and `valid_from` of the one named by `relationship_id`. */
  upsert(body: BodyOf<'upsertRelationship'>, options?: WriteOptions): Promise<Relationship> {
    return this.ctx.transport.json({ operationId: 'upsertRelationship', method: 'POST', path: '/v1/memory/relationships', query: this.ctx.query(), json: body, write: true, options });
  }

  /** One page of edges (active ones unless `include_inactive` or `as_of`), newest observed first. */
  list(params: RelationshipListParams = {}, options?: RequestOptions): Promise<RelationshipList> {
    return this.ctx.transport.json({ operationId: 'listRelationships', method: 'GET', path: '/v1/memory/relationships', query: this.ctx.query(params), options });
  }

  /** Every edge matching the filters, page after page (`for await`). */
  iterate(params: Omit<RelationshipListParams, 'cursor'> = {}, options?: RequestOptions): AsyncGenerator<Relationship, void, undefined> {
    return followCursors((cursor) => this.list({ ...params, cursor }, options), (page) => page.relationships);
  }

  /** Soft-retracts an edge (`invalid_from` set, history kept) and returns it. */
  retract(relationshipId: string, options?: RequestOptions): Promise<Relationship> {
    return this.ctx.transport.json({ operationId: 'retractRelationship', method: 'DELETE', path: `/v1/memory/relationships/${seg(relationshipId)}`, query: this.ctx.query(), options });
  }
}
