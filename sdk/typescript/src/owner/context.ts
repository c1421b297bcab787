import type { QueryValue, Transport } from '../transport.js';

/** The scope every owner route is called in: (tenant from the key, partition, entity_id). */
export interface OwnerScope {
  entity_id: string;
  partition?: string;
}

/** What an owner's resources share: the transport and the scope they add to each call's query. */
export class OwnerContext {
  constructor(readonly transport: Transport, readonly scope: OwnerScope) {}

  /** The scope's query parameters plus the call's own (undefined ones are left out). */
  query(params: object = {}): Record<string, QueryValue> {
    return { entity_id: this.scope.entity_id, partition: this.scope.partition, ...(params as Record<string, QueryValue>) };
  }
}

/** A path segment, encoded: ids are validated by the service, but a stray `/` must not change the route. */
export const seg = (value: string): string => encodeURIComponent(value);
