/**
 * The isolation boundary of every memory record: tenant (from the bearer key), partition (null when
 * absent) and the owner `entity_id`. Every storage key starts with it, so a wrong scope finds nothing.
 */
export interface Scope {
  tenant: string;
  partition: string | null;
  entityId: string;
}

/** The tenant-wide boundary of schema and structured queries. */
export interface TenantScope {
  tenant: string;
  partition: string | null;
}

/** The owner fields every record carries in responses. */
export function ownerFields(scope: Scope): { entity_id: string; partition: string | null } {
  return { entity_id: scope.entityId, partition: scope.partition };
}
