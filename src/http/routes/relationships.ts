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
    const { entity_id, partition, limit, ...filters } = parseQuery(ctx, RelationshipListQuerySchema);
    const scope = ownerScope(ctx, { entity_id, partition }, 'read');
    const edges = deps.graph.listRelationships(scope, { ...filters, limit: limit ?? LIST_LIMIT_DEFAULT });
    ctx.body = { relationships: edges.map(relationshipJson), count: edges.length };
  });

  router.delete('/memory/relationships/:id', async (ctx) => {
    const scope = ownerScope(ctx, parseQuery(ctx, OwnerQuerySchema), 'write');
    const id = parseParam(ctx.params.id, 'id', IdSchema);
    ctx.body = relationshipJson(await deps.actors.actorFor(scope).retractRelationship(id));
  });
}
