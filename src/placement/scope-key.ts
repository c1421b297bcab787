import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import type { TenantScope } from '../domain/scope.js';

/**
 * The text a scope is placed by (docs/scale-out.md): the tenant, URI-encoded, for a tenant placed whole
 * (its keys are single-tenant: its tenant-wide queries and field schemas stay on one node), and
 * `<tenant>/<partition>` for a tenant placed by partition (it has a multi-tenant key). The encoded tenant
 * holds no `/`, so the first `/` ends it; the partition is kept as the caller sent it, decoded, which is
 * what the balancer sees too (`urlp(partition),url_dec(1)` in deploy/haproxy/haproxy.cfg.template).
 */
export function placementKey(scope: TenantScope, byPartition: boolean): string {
  const tenant = encodeURIComponent(scope.tenant);
  return byPartition ? `${tenant}/${scope.partition ?? ''}` : tenant;
}

/** A scope's own line in the map is keyed by the SHA-256 of its key (hex), so no key needs escaping there. */
export function placementDigest(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** The slot of a scope without a line of its own: CRC-32 of its key (HAProxy's `crc32` is the same) modulo the slots. */
export function placementSlot(key: string, slots: number): number {
  return crc32(Buffer.from(key, 'utf8')) % slots;
}
