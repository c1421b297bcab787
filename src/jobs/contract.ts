import type { ConsolidationReport } from '../domain/consolidation.js';
import type { Scope } from '../domain/scope.js';

/**
 * What crosses the workflow boundary: workflow inputs and results, activity signatures, and the ids they
 * carry. Principle 5 (DESIGN.md): inputs, results and therefore histories hold ids, counts and settings
 * only, never owner content. Field names here are on the wire of recorded histories: renaming one
 * breaks the replay of running workflows. Workflows import this file and @temporalio/workflow only;
 * activities/ implement the activity interfaces; src/temporal/ builds the inputs.
 */

/** The scope of a job as plain data: tenant, partition (null when absent) and owner entity id. */
export interface OwnerRef {
  tenant: string;
  partition: string | null;
  entity_id: string;
}

/** The scope as workflow input: identifiers only. */
export function ownerRef(scope: Scope): OwnerRef {
  return { tenant: scope.tenant, partition: scope.partition, entity_id: scope.entityId };
}

/** The scope an owner reference (or any record carrying `tenant`, `partition`, `entity_id`) names. */
export function scopeOf(ref: OwnerRef): Scope {
  return { tenant: ref.tenant, partition: ref.partition, entityId: ref.entity_id };
}

/**
 * The scope a job is placed by (docs/scale-out.md): tenant and partition, as data. Every job that touches
 * owner data runs its activities on the task queue of the node hosting this scope, looked up when each
 * activity is scheduled (workflows/placement.ts), so a job started before a move runs where the scope is now.
 */
export interface PlacementRef {
  tenant: string;
  partition: string | null;
}

/** The placement scope of a job's owner (or of any record with `tenant` and `partition`), nothing more. */
export function placementOf(ref: { tenant: string; partition?: string | null | undefined }): PlacementRef {
  return { tenant: ref.tenant, partition: ref.partition ?? null };
}

/** The task queues of the node hosting a scope: its activities' and its bounded re-embedding queue. */
export interface HostingQueues {
  activities: string;
  reembed: string;
}

export interface PlacementActivities {
  /** A local activity: the hosting node's queues, from the placement map of the node that runs the workflow. */
  hostingQueues(scope: PlacementRef): Promise<HostingQueues>;
}

/** Identifies one backfill: a field version to build. Ids only, so it can be a workflow input. */
export interface BackfillRef {
  tenant: string;
  partition_scope: string | null;
  name: string;
  ver: string;
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

// --- consolidate ---

export interface ConsolidateInput {
  owner: OwnerRef;
  activity: ActivityPolicy;
}

/** The counts of one consolidation: the workflow's result and the route's answer. */
export type ConsolidateResult = ConsolidationReport;

export interface ConsolidateActivities {
  /** Plans and retracts in the owner's actor; returns counts only. */
  consolidateOwner(owner: OwnerRef): Promise<ConsolidateResult>;
}

// --- captionMedia ---

export interface CaptionMediaInput {
  owner: OwnerRef;
  /** The staged media record; its bytes stay encrypted in LMDB and never enter the history. */
  doc_id: string;
  /** Name of the provider route chosen by the HTTP layer (PHI policy already applied). */
  route: string;
  activity: ActivityPolicy;
}

export interface CaptionMediaResult {
  doc_id: string;
}

export interface DeriveMediaTextInput {
  owner: OwnerRef;
  doc_id: string;
  route: string;
}

export interface CaptionMediaActivities {
  /**
   * Reads the staged media, asks the provider for its caption or transcript, and stores it as the
   * media's derived text in the owner's actor. Idempotent: a retry after the text was stored is a no-op.
   */
  deriveMediaText(input: DeriveMediaTextInput): Promise<void>;
}

// --- backfillField ---

/** Where a backfill stands: the last document number indexed and how many were indexed. */
export interface BackfillCursor {
  cursor: number;
  done: number;
}

export interface BackfillFieldInput {
  /** Field identity and the version being built: ids only. */
  field: BackfillRef;
  page_size: number;
  /** How long one slice activity indexes before it returns its cursor. */
  slice_ms: number;
  activity: ActivityPolicy;
  /** Where a continued-as-new run picks up. */
  from?: BackfillCursor;
}

export type BackfillFieldResult = { status: 'complete'; indexed: number } | { status: 'superseded' };

/** One slice's outcome: how far it got (and whether that is the end), or that the version was superseded. */
export type SliceResult = (BackfillCursor & { finished: boolean }) | { superseded: true };

export interface BackfillFieldActivities {
  /** Indexes pages from `from` for up to `maxMs`; resumes from its own heartbeat on a retry. */
  backfillFieldSlice(ref: BackfillRef, from: BackfillCursor, pageSize: number, maxMs: number): Promise<SliceResult>;
  /** Switches the field to the built version (atomically); false when it was superseded meanwhile. */
  completeFieldBackfill(ref: BackfillRef): Promise<boolean>;
  /** Records `failed:<reason>` on the field version. */
  failFieldBackfill(ref: BackfillRef, reason: string): Promise<void>;
}

// --- reembedOwner ---

/** Where an owner's re-embedding stands: passages rewritten, of how many (the workflow's `progress` query). */
export interface ReembedProgress {
  done: number;
  total: number;
}

/** Name of the query that answers a running `reembedOwner` with its ReembedProgress. */
export const REEMBED_PROGRESS_QUERY = 'progress';

export interface ReembedOwnerInput {
  owner: OwnerRef;
  /** The embedder id the passages are rewritten with: the node's. A node running another refuses the job. */
  embedder: string;
  /** The node's re-embedding task queue, whose worker runs a bounded number of these activities at once. */
  task_queue: string;
  /** Passages per page (one transaction of the owner's actor). */
  page_size: number;
  /** How long one slice activity rewrites pages before it reports progress to the workflow. */
  slice_ms: number;
  activity: ActivityPolicy;
  /** Where a continued-as-new run picks up. */
  from?: ReembedProgress;
}

export interface ReembedOwnerResult {
  reembedded: number;
  total: number;
}

export interface ReembedOwnerActivities {
  /** Progress as committed in the owner's records, and how many foreign passages are left. */
  planReembed(owner: OwnerRef, embedder: string): Promise<ReembedProgress>;
  /**
   * Rewrites pages from the owner's committed cursor for up to `maxMs` (at least one page), heartbeating
   * after every embedding batch; `finished` once no foreign passage is left to visit.
   */
  reembedSlice(owner: OwnerRef, embedder: string, pageSize: number, maxMs: number): Promise<{ done: number; finished: boolean }>;
  /** Clears the cursor and reopens the owner's vector index; returns the foreign passages still left (0). */
  finishReembed(owner: OwnerRef, embedder: string): Promise<{ foreign: number }>;
}

// --- reembedSweep ---

export interface ReembedSweepInput {
  /** The activity queue of the node whose owners are swept (absent in runs started before nodes had queues). */
  task_queue?: string;
  /** How long one sweep activity visits owners before it reports its cursor. */
  slice_ms: number;
  activity: ActivityPolicy;
  /** Where a continued-as-new run picks up. */
  from?: { after: OwnerRef | null; owners: number };
}

/** How many owners with foreign passages the sweep found; each has its `reembedOwner` run started (or joined). */
export interface ReembedSweepResult {
  owners: number;
}

export interface ReembedSweepActivities {
  /**
   * Visits the node's owners after `after` for up to `maxMs`, starting the re-embedding of each that holds
   * passages of another embedder. `next` is the last owner visited, null once every owner was.
   */
  sweepForeignOwners(after: OwnerRef | null, maxMs: number): Promise<{ owners: number; next: OwnerRef | null }>;
}

// --- eraseOwner ---

/**
 * An erasure as workflow input: its receipt and tenant, never the owner. The activities read whose scope it
 * erases from the tombstone in LMDB (src/store/owner-holds.ts), so no owner id enters the history.
 */
export interface ErasureRef {
  tenant: string;
  receipt_id: string;
  /** The receipt's partition, which places the job (absent in runs started before nodes had queues). */
  partition?: string | null;
}

export interface EraseOwnerInput extends ErasureRef {
  /** How long one purge activity deletes (in bounded transactions) before it reports back. */
  slice_ms: number;
  activity: ActivityPolicy;
}

export interface EraseOwnerResult {
  state: 'complete';
}

export interface EraseOwnerActivities {
  /** Marks the receipt running; false when the erasure is already complete (a repeated run). */
  beginErasure(ref: ErasureRef): Promise<boolean>;
  /** Terminates and deletes the owner's workflow runs (consolidation, captioning, re-embedding); heartbeats. */
  deleteOwnerRuns(ref: ErasureRef): Promise<void>;
  /** Deletes the owner's records for up to `maxMs`, heartbeating per transaction; `finished` once none is left. */
  purgeErasedOwner(ref: ErasureRef, maxMs: number): Promise<{ finished: boolean }>;
  /** Marks the receipt complete, forgets the owner id and releases the hold. */
  completeErasure(ref: ErasureRef): Promise<void>;
  /** Marks the receipt failed (the owner stays held: invisible, refusing writes). */
  failErasure(ref: ErasureRef): Promise<void>;
}

/** Every activity the worker registers; names are unique across workflows. */
export type Activities = PlacementActivities & ConsolidateActivities & CaptionMediaActivities & BackfillFieldActivities & ReembedOwnerActivities & ReembedSweepActivities & EraseOwnerActivities;
