/**
 * Shapes that cross the workflow boundary. Principle 5 (DESIGN.md): workflow inputs, results and
 * therefore histories carry ids, counts and settings only, never owner content.
 */

/** The scope of a job as plain data: tenant, partition (null when absent) and owner entity id. */
export interface OwnerRef {
  tenant: string;
  partition: string | null;
  entity_id: string;
}

/** Activity timeouts and retries from temporal.yaml, passed in so workflow code reads no config. */
export interface ActivityPolicy {
  start_to_close_timeout_ms: number;
  /** Only for activities that heartbeat; others would time out waiting for a heartbeat. */
  heartbeat_timeout_ms?: number;
  retry: {
    initial_interval_ms: number;
    backoff_coefficient: number;
    maximum_interval_ms: number;
    maximum_attempts: number;
  };
}
