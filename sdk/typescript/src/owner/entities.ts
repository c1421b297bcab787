import { followCursors } from '../pagination.js';
import type { BodyOf, Entity, EntityList, ForgetReport, OwnerParams, RequestOptions, WriteOptions } from '../types.js';
import { type OwnerContext, seg } from './context.js';

/** Filters of the entity list, and the cursor of a page (`next_cursor` of the previous one). */
export type EntityListParams = OwnerParams<'listEntities'>;

/** The typed nodes of an owner's graph. */
export class Entities {
  constructor(private readonly ctx: OwnerContext) {}

  /** Creates a node, or updates the one named by `memory_entity_id` (creating it with that id if new). */
  upsert(body: BodyOf<'upsertEntity'>, options?: WriteOptions): Promise<Entity> {
    return this.ctx.transport.json({ operationId: 'upsertEntity', method: 'POST', path: '/v1/memory/entities', query: this.ctx.query(), json: body, write: true, options });
  }

  /** One node by its `memory_entity_id`; NotFoundError when the scope has none. */
  get(memoryEntityId: string, options?: RequestOptions): Promise<Entity> {
    return this.ctx.transport.json({ operationId: 'getEntity', method: 'GET', path: `/v1/memory/entities/${seg(memoryEntityId)}`, query: this.ctx.query(), options });
  }

  /** One page of nodes, oldest first; `next_cursor` names the next page. */
  list(params: EntityListParams = {}, options?: RequestOptions): Promise<EntityList> {
    return this.ctx.transport.json({ operationId: 'listEntities', method: 'GET', path: '/v1/memory/entities', query: this.ctx.query(params), options });
  }

  /** Every node matching the filters, page after page (`for await`). */
  iterate(params: Omit<EntityListParams, 'cursor'> = {}, options?: RequestOptions): AsyncGenerator<Entity, void, undefined> {
    return followCursors((cursor) => this.list({ ...params, cursor }, options), (page) => page.entities);
  }

  /** Forgets a node: it, every edge from or to it and every fact about them, with their history. */
  forget(memoryEntityId: string, options?: RequestOptions): Promise<ForgetReport> {
    return this.ctx.transport.json({ operationId: 'forgetEntity', method: 'DELETE', path: `/v1/memory/entities/${seg(memoryEntityId)}`, query: this.ctx.query(), options });
  }
}
