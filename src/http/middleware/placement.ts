import type { Middleware } from 'koa';
import type { TenantScope } from '../../domain/scope.js';
import type { AppError } from '../../errors.js';
import { scopeMoving, type TransferState } from '../../placement/scope-transfers.js';
import type { AppState } from '../context.js';

/** Authenticated paths that name no scope: any node answers them. */
const SCOPELESS_PATHS = new Set(['/', '/v1/openapi.json']);
/** The operator's routes of a move (src/http/routes/scope-transfer.ts) check placement themselves. */
const TRANSFER_PREFIX = '/v1/admin/scopes/';
/** POST routes that only read: they go on while a scope is frozen for a move. */
const READ_POSTS = new Set(['/v1/query', '/v1/search/batch', '/v1/search/embed']);
/** What an admin key may do for a scope this node is receiving: declare its fields and import its owners. */
const RECEIVING_PATHS = new Set(['/v1/schema/fields', '/v1/memory/import']);

export interface PlacementGate {
  standing(scope: TenantScope): { state: TransferState; serves: boolean };
  misdirected(scope: TenantScope): AppError;
}

/**
 * On a deployment of several nodes, a request for a scope another node hosts answers 421 `misdirected`
 * (DECISIONS.md) before it touches anything: never 404, which would tell an agent that the owner does not
 * exist, and never a write into an empty owner here. The scope is the key's tenant and the `partition` of
 * the query string, as the balancer sees them. A multi-tenant key without a partition, or a partition
 * given twice, goes on to the route, which answers 400. While a scope moves (docs/scale-out.md), the node
 * handing it over serves its reads and answers its writes 503 with Retry-After, and the node taking it
 * lets an admin key declare its fields and import its owners.
 */
export function hostedScopesOnly(placement: PlacementGate): Middleware<AppState> {
  return (ctx, next) => {
    const { principal } = ctx.state;
    if (principal === undefined || SCOPELESS_PATHS.has(ctx.path) || ctx.path.startsWith(TRANSFER_PREFIX)) return next();
    const partition = ctx.query.partition;
    if (typeof partition !== 'string' && (partition !== undefined || principal.multiTenant)) return next();
    const scope = { tenant: principal.tenant, partition: partition ?? null };
    const { state, serves } = placement.standing(scope);
    switch (state) {
      case 'frozen':
        if (ctx.method === 'GET' || ctx.method === 'HEAD' || READ_POSTS.has(ctx.path)) return next();
        throw scopeMoving();
      case 'receiving':
        if (principal.admin && RECEIVING_PATHS.has(ctx.path)) return next();
        break;
      default:
    }
    if (!serves) throw placement.misdirected(scope);
    return next();
  };
}
