import type { Principal } from '../auth/keys.js';
import type { Scope, TenantScope } from '../domain/scope.js';
import { invalidInput } from '../errors.js';

/** The tenant comes from the key, never the client; a multi-tenant key must name a partition. */
export function tenantScope(principal: Principal, partition: string | undefined): TenantScope {
  if (principal.multiTenant && partition === undefined) {
    throw invalidInput('query parameter partition is required for a multi-tenant key');
  }
  return { tenant: principal.tenant, partition: partition ?? null };
}

export function ownerScope(principal: Principal, query: { entity_id: string; partition?: string | undefined }): Scope {
  return { ...tenantScope(principal, query.partition), entityId: query.entity_id };
}
