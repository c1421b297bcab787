import type { Middleware } from 'koa';
import type { TenantScope } from '../../domain/scope.js';
import type { AppState } from '../context.js';

/** Authenticated paths that name no scope: any node answers them. */
const SCOPELESS_PATHS = new Set(['/', '/v1/openapi.json']);

/**
 * On a deployment of several nodes, a request for a scope another node hosts answers 421 `misdirected`
 * (DECISIONS.md) before it touches anything: never 404, which would tell an agent that the owner does not
 * exist, and never a write into an empty owner here. The scope is the key's tenant and the `partition` of
 * the query string, as the balancer sees them. A multi-tenant key without a partition, or a partition
 * given twice, goes on to the route, which answers 400.
 */
export function hostedScopesOnly(placement: { assertHosted(scope: TenantScope): void }): Middleware<AppState> {
  return (ctx, next) => {
    const { principal } = ctx.state;
    if (principal !== undefined && !SCOPELESS_PATHS.has(ctx.path)) {
      const partition = ctx.query.partition;
      if (typeof partition === 'string' || (partition === undefined && !principal.multiTenant)) {
        placement.assertHosted({ tenant: principal.tenant, partition: partition ?? null });
      }
    }
    return next();
  };
}
