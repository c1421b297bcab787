import type { AppDeps } from '../context.js';
import { idempotentWrite } from '../idempotency.js';
import type { AppRouter } from '../router.js';
import { ConsolidateBodySchema, OwnerQuerySchema } from '../schemas/memory.js';
import { ownerScope } from '../scope.js';
import { parseBody, parseQuery } from '../validate.js';

/**
 * `POST /v1/memory/consolidate`: runs the consolidation job for the owner scope and answers 200 with
 * the report once it has completed. 503 `unavailable` when the job engine cannot serve.
 */
export function registerConsolidateRoute(router: AppRouter, deps: AppDeps): void {
  router.post('/memory/consolidate', idempotentWrite(deps, { jsonLimit: deps.jsonBodyLimit }), async (ctx) => {
    const scope = ownerScope(ctx, parseQuery(ctx, OwnerQuerySchema), 'write');
    await parseBody(ctx, ConsolidateBodySchema, deps.jsonBodyLimit);
    const report = await deps.jobs.consolidate(scope);
    ctx.body = {
      active_facts_before: report.active_facts_before,
      active_facts_after: report.active_facts_after,
      retracted: report.retracted,
    };
  });
}
