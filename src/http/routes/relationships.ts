import { relationshipPosition } from '../../domain/list-page.js';
import { mintId } from '../../ids.js';
import type { AppDeps } from '../context.js';
import { idempotentWrite } from '../idempotency.js';
import type { AppRouter } from '../router.js';
import { IdSchema, LIST_LIMIT_DEFAULT } from '../schemas/common.js';
import { OwnerQuerySchema, RelationshipBodySchema, RelationshipListQuerySchema } from '../schemas/memory.js';
import { ownerScope } from '../scope.js';
import { relationshipJson } from '../serialize.js';
import { parseBody, parseParam, parseQuery } from '../validate.js';

export function registerRelationshipRoutes(router: AppRouter, deps: AppDeps): void {
  router.post('/memory/relationships', idempotentWrite(deps, { jsonLimit: deps.jsonBodyLimit }), async (ctx) => {
    const scope = ownerScope(ctx, parseQuery(ctx, OwnerQuerySchema), 'write');
    const body = await parseBody(ctx, RelationshipBodySchema, deps.jsonBodyLimit);
    const edge = await deps.actors
      .actorFor(scope)
      .upsertRelationship({ ...body, relationship_id: body.relationship_id ?? mintId('rel') });
    ctx.status = 201;
    ctx.body = relationshipJson(edge);
  });

  router.get('/memory/relationships', (ctx) => {
    const { limit = LIST_LIMIT_DEFAULT, cursor, ...query } = parseQuery(ctx, RelationshipListQuerySchema);
    const { entity_id, partition, ...filters } = query;
    const scope = ownerScope(ctx, { entity_id, partition }, 'read');
    const { page, next_cursor } = deps.cursors.page(
      { binding: { list: 'relationships', tenant: scope.tenant, filters: query }, cursor, limit },
      (after, n) => deps.graph.listRelationships(scope, { ...filters, after, limit: n }),
      relationshipPosition,
    );
    ctx.body = { relationships: page.map(relationshipJson), count: page.length, next_cursor };
  });

  router.delete('/memory/relationships/:id', async (ctx) => {
    const scope = ownerScope(ctx, parseQuery(ctx, OwnerQuerySchema), 'write');
    const id = parseParam(ctx.params.id, 'id', IdSchema);
    ctx.body = relationshipJson(await deps.actors.actorFor(scope).retractRelationship(id));
  });
}
