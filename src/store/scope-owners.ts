import type { Scope, TenantScope } from '../domain/scope.js';
import { KEY_MAX, type Key, type Store } from './lmdb.js';

/**
 * The owners this node holds records of under a tenant (every partition), or one of its partitions, in key
 * order after `after`, at most `limit`: one jump per owner over the records database, whose every key
 * starts with the owner's scope. What a move copies (docs/scale-out.md).
 */
export function scopeOwners(store: Store, scope: { tenant: string; partition?: string | null }, after: Scope | null, limit: number): Scope[] {
  const prefix: Key = scope.partition === undefined ? [scope.tenant] : [scope.tenant, scope.partition ?? ''];
  let start: Key = after ? [after.tenant, after.partition ?? '', after.entityId, KEY_MAX] : prefix;
  const end: Key = [...prefix, KEY_MAX];
  const owners: Scope[] = [];
  while (owners.length < limit) {
    const [key] = store.records.getKeys({ start, end, limit: 1 }) as Iterable<Key>;
    if (!key) break;
    const [tenant, partition, entityId] = key;
    if (typeof tenant !== 'string' || typeof partition !== 'string' || typeof entityId !== 'string') break;
    owners.push({ tenant, partition: partition === '' ? null : partition, entityId });
    start = [tenant, partition, entityId, KEY_MAX];
  }
  return owners;
}

/** Whether `owner` lies in `scope` (a whole tenant when its partition is undefined). */
export function inScope(owner: TenantScope, scope: { tenant: string; partition?: string | null }): boolean {
  return owner.tenant === scope.tenant && (scope.partition === undefined || owner.partition === scope.partition);
}
