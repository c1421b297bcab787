import { invalidInput, unavailable } from '../../errors.js';
import type { AppDeps } from '../context.js';
import { readOnlyPost } from '../idempotency.js';
import type { AppRouter } from '../router.js';
import { QueryBodySchema, QueryQuerySchema } from '../schemas/query.js';
import { tenantScope } from '../scope.js';
import { documentJson } from '../serialize-documents.js';
import { parseBody, parseQuery } from '../validate.js';

/** `POST /v1/query`: Mode A (a page of documents) without `aggregate`, Mode B (groups) with it. */
export function registerQueryRoute(router: AppRouter, deps: AppDeps): void {
  router.post('/query', readOnlyPost, async (ctx) => {
    if (!deps.fields) throw unavailable('structured queries are not available on this node');
    const fromQuery = parseQuery(ctx, QueryQuerySchema).partition;
    const { partition: fromBody, ...request } = await parseBody(ctx, QueryBodySchema, deps.jsonBodyLimit);
    if (fromQuery !== undefined && fromBody !== undefined && fromQuery !== fromBody) {
      throw invalidInput(`partition is given twice with different values (query ${JSON.stringify(fromQuery)}, body ${JSON.stringify(fromBody)})`);
    }
    const scope = tenantScope(ctx.state.principal, fromQuery ?? fromBody);
    const result = await deps.fields.run({ tenant: scope.tenant, partition: scope.partition, principal: ctx.state.principal.principal }, request);
    ctx.body =
      result.mode === 'documents'
        ? { documents: result.documents.map(({ doc, fields }) => documentJson(doc, fields)), total: result.total, has_more: result.has_more }
        : { groups: result.groups, total_groups: result.total_groups, scanned: result.scanned };
  });
}
