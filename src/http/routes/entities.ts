import { entityPosition } from '../../domain/list-page.js';
import { foldName } from '../../domain/names.js';
import { mintId } from '../../ids.js';
import { notFound } from '../../errors.js';
import type { AppDeps } from '../context.js';
import { idempotentWrite } from '../idempotency.js';
import type { AppRouter } from '../router.js';
import { IdSchema, LIST_LIMIT_DEFAULT } from '../schemas/common.js';
import { EntityBodySchema, EntityListQuerySchema, OwnerQuerySchema } from '../schemas/memory.js';
import { ownerScope } from '../scope.js';
import { entityJson } from '../serialize.js';
import { parseBody, parseParam, parseQuery } from '../validate.js';

export function registerEntityRoutes(router: AppRouter, deps: AppDeps): void {
  router.post('/memory/entities', idempotentWrite(deps, { jsonLimit: deps.jsonBodyLimit }), async (ctx) => {
    const scope = ownerScope(ctx, parseQuery(ctx, OwnerQuerySchema), 'write');
    const body = await parseBody(ctx, EntityBodySchema, deps.jsonBodyLimit);
    const entity = await deps.actors
      .actorFor(scope)
      .upsertEntity({ ...body, memory_entity_id: body.memory_entity_id ?? mintId('ent') });
    ctx.status = 201;
    ctx.body = entityJson(entity);
  });

  router.get('/memory/entities', async (ctx) => {
    const { limit = LIST_LIMIT_DEFAULT, cursor, ...filters } = parseQuery(ctx, EntityListQuerySchema);
    const scope = ownerScope(ctx, filters, 'read');
    const name = filters.name === undefined ? undefined : foldName(filters.name);
    // An owner written before the name index existed is indexed once, in its actor's order, before its first lookup.
    if (name !== undefined && !deps.graph.names.complete(scope)) await deps.actors.actorFor(scope).indexEntityNames();
    const binding = { list: 'entities', tenant: scope.tenant, filters: { ...filters, name } } as const;
    const { page, next_cursor } = deps.cursors.page(
      { binding, cursor, limit },
      (after, n) => deps.graph.listEntities(scope, { entity_type: filters.entity_type, name, after, limit: n }),
      entityPosition,
    );
    ctx.body = { entities: page.map(entityJson), count: page.length, next_cursor };
  });

  router.get('/memory/entities/:id', (ctx) => {
    const scope = ownerScope(ctx, parseQuery(ctx, OwnerQuerySchema), 'read');
    const id = parseParam(ctx.params.id, 'id', IdSchema);
    const entity = deps.graph.getEntity(scope, id);
    if (!entity) throw notFound(`memory entity ${id}`);
    ctx.body = entityJson(entity);
  });

  /** Forgetting (not retraction): the node, its edges and the facts about them, with their history, are erased. */
  router.delete('/memory/entities/:id', async (ctx) => {
    const scope = ownerScope(ctx, parseQuery(ctx, OwnerQuerySchema), 'write');
    const id = parseParam(ctx.params.id, 'id', IdSchema);
    ctx.body = { erased: await deps.actors.actorFor(scope).forgetEntity(id) };
  });
}
