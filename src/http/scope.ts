import type { Principal } from '../auth/keys.js';
import type { Scope, TenantScope } from '../domain/scope.js';
import { invalidInput } from '../errors.js';
import { heldWriteConflict } from '../store/owner-holds.js';
import type { AppState } from './context.js';

/** The tenant comes from the key, never the client; a multi-tenant key must name a partition. */
export function tenantScope(principal: Principal, partition: string | undefined): TenantScope {
  if (principal.multiTenant && partition === undefined) {
    throw invalidInput('query parameter partition is required for a multi-tenant key');
  }
  return { tenant: principal.tenant, partition: partition ?? null };
}

type OwnerQuery = { entity_id: string; partition?: string | undefined };

/** The owner scope a request names, whatever state the owner is in (the erasure route needs it as asked). */
export function requestedScope(principal: Principal, query: OwnerQuery): Scope {
  const { tenant, partition } = tenantScope(principal, query.partition);
  // Built field by field, as every other scope is: a spread made an object of another shape.
  return { tenant, partition, entityId: query.entity_id };
}

/**
 * The owner id of no owner: `entity_id` is at least one character, so nothing is ever stored under it.
 * A read of a held owner resolves to it, and finds nothing.
 */
const VACANT_OWNER = '';

/**
 * The owner scope of a request, for a `read` or a `write`. An owner being erased or imported (held,
 * src/store/owner-holds.ts) reads as one that never existed: a read resolves to the vacant scope of its
 * tenant and partition, where every list is empty and every get 404, with no check in the routes; a write
 * answers 409 `conflict` here, before the route touches anything (the actor registry refuses the owner
 * too, for a hold placed while a write was on its way).
 */
export function ownerScope(ctx: { state: AppState }, query: OwnerQuery, access: 'read' | 'write'): Scope {
  const scope = requestedScope(ctx.state.principal, query);
  const hold = ctx.state.holds?.holdOf(scope);
  if (!hold) return scope;
  if (access === 'write') throw heldWriteConflict(hold);
  return { ...scope, entityId: VACANT_OWNER };
}
