import { factPosition } from '../../domain/list-page.js';
import type { AppDeps } from '../context.js';
import { factCommand } from '../fact-command.js';
import { idempotentWrite } from '../idempotency.js';
import type { AppRouter } from '../router.js';
import { IdSchema, LIST_LIMIT_DEFAULT } from '../schemas/common.js';
import { FactBodySchema, FactListQuerySchema, OwnerQuerySchema } from '../schemas/memory.js';
import { ownerScope } from '../scope.js';
import { factJson } from '../serialize.js';
import { parseBody, parseParam, parseQuery } from '../validate.js';

export function registerFactRoutes(router: AppRouter, deps: AppDeps): void {
  router.post('/memory/facts', idempotentWrite(deps, { jsonLimit: deps.jsonBodyLimit }), async (ctx) => {
    const scope = ownerScope(ctx, parseQuery(ctx, OwnerQuerySchema), 'write');
    const body = await parseBody(ctx, FactBodySchema, deps.jsonBodyLimit);
    const keep = ctx.state.keepWithWrite;
    const fact = await deps.actors.actorFor(scope).assertFact(
      factCommand(body, deps.clock.now(), deps.observedAtMaxSkewMs),
      keep && ((decided) => keep(201, factJson(decided))),
    );
    ctx.status = 201;
    ctx.body = factJson(fact);
  });

  router.get('/memory/facts', (ctx) => {
    const { limit = LIST_LIMIT_DEFAULT, cursor, ...query } = parseQuery(ctx, FactListQuerySchema);
    const { entity_id, partition, history, ...filters } = query;
    const scope = ownerScope(ctx, { entity_id, partition }, 'read');
    const index = deps.actors.factsFor(scope);
    const { page, next_cursor } = deps.cursors.page(
      { binding: { list: 'facts', tenant: scope.tenant, filters: query }, cursor, limit },
      (after, n) =>
        history && filters.subject_type !== undefined && filters.predicate !== undefined
          ? index.chain(filters.subject_type, filters.subject_id ?? null, filters.predicate, n, after)
          : index.list({ ...filters, after, limit: n }),
      factPosition,
    );
    ctx.body = { facts: page.map(factJson), count: page.length, next_cursor };
  });

  router.delete('/memory/facts/:id', async (ctx) => {
    const scope = ownerScope(ctx, parseQuery(ctx, OwnerQuerySchema), 'write');
    const id = parseParam(ctx.params.id, 'id', IdSchema);
    ctx.body = factJson(await deps.actors.actorFor(scope).retractFact(id));
  });
}
