import type { Scope } from '../domain/scope.js';
import type { BackfillRef, ConsolidateResult } from './contract.js';

/** Readiness of a dependency as `GET /status` reports it. */
export type Readiness = { ready: true; detail?: string } | { ready: false; detail: string };

/**
 * The job engine's part of `GET /status`: its readiness and, when the node supervises its own embedded
 * Temporal dev server, how often that was restarted and when last (RFC 3339, null before any restart).
 */
export type JobsStatus = Readiness & { restarts?: number; last_restart_at?: string | null };

/**
 * Whatever runs the durable jobs; the HTTP layer only needs its readiness and the job entry points, and
 * src/temporal/ implements it. Every entry point throws AppError `unavailable` (503) quickly when the job
 * engine cannot serve.
 */
export interface JobsPort {
  /** Cached; never waits on the network. */
  readiness(): JobsStatus;
  /** Runs consolidation for one owner scope and answers with its report once it has completed. */
  consolidate(scope: Scope): Promise<ConsolidateResult>;
  /**
   * Starts (does not await) the backfill workflow of one field version; a running backfill of the same
   * field is cancelled. Absent on nodes that cannot run it: the schema route then answers 503.
   */
  backfillField?(ref: BackfillRef): Promise<void>;
}
