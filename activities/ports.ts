import type { ConsolidationReport } from '../src/domain/consolidation.js';
import type { StoredDocument } from '../src/domain/documents.js';
import type { Scope, TenantScope } from '../src/domain/scope.js';
import type { BackfillRef, ErasureRef, HostingQueues, ReembedProgress } from '../src/jobs/contract.js';
import type { MediaRoute } from '../src/config.js';

/**
 * What the activities need from the rest of the service, declared here as structural ports (the
 * samples' `createActivities(db: DB)` habit) so activities import no concrete class. Every port is
 * required: a node that cannot provide one cannot register the activities that use it. The composition
 * root (src/server.ts) builds them from the real objects. Writes go through the owner's actor, never
 * straight to the store.
 */
export interface ActivityPorts {
  owners: OwnersPort;
  fields: FieldBackfillPort;
  media: MediaPort;
  reembed: ReembedPort;
  /** Starts durable jobs from inside an activity (the sweep starts owners' re-embedding); given by src/temporal. */
  starts: JobStartPort;
  erasures: ErasurePort;
  /** The owners' runs in the job engine; given by src/temporal. */
  runs: OwnerRunsPort;
  /** Where scopes live (src/placement/node-placement.ts); the queues are given by src/temporal. */
  placement: PlacementPort;
}

/** Where scopes live: every activity on owner data first checks that this node hosts the scope. */
export interface PlacementPort {
  /** Throws AppError 421 `misdirected` when another node hosts the scope (or this one is handing it over). */
  assertHosted(scope: TenantScope): void;
  /** The task queues of the node hosting the scope. */
  queuesOf(scope: TenantScope): HostingQueues;
}

/** The steps of an owner's erasure, each reading the owner from the receipt's tombstone (OwnerErasures fits). */
export interface ErasurePort {
  begin(ref: ErasureRef): Promise<boolean>;
  scopeOf(ref: ErasureRef): Scope;
  purge(ref: ErasureRef, options: { maxMs: number; heartbeat: () => void }): Promise<{ finished: boolean }>;
  count(ref: ErasureRef, counts: { workflow_runs: number }): Promise<void>;
  complete(ref: ErasureRef): Promise<void>;
  fail(ref: ErasureRef): Promise<void>;
}

export interface OwnerRunsPort {
  /**
   * Terminates (when running) and deletes every workflow run of the owner; `done` are the run ids an earlier
   * attempt deleted, `heartbeat` gets those deleted so far. Returns how many distinct runs were deleted.
   */
  deleteOwnerRuns(scope: Scope, done: readonly string[], heartbeat: (done: string[]) => void): Promise<number>;
}

/** The owners' actors (ActorRegistry fits): consolidation and re-embedding pages run inside the owner's actor. */
export interface OwnersPort {
  actorFor(scope: Scope): { consolidate(): Promise<ConsolidationReport>; reembedding: ReembedSteps };
}

/** An owner's re-embedding steps (OwnerReembed fits). */
export interface ReembedSteps {
  plan(): Promise<ReembedProgress>;
  page(limit: number, onBatch: () => void): Promise<{ done: number; finished: boolean }>;
  finish(): Promise<number>;
}

/** What the node re-embeds with, whether it may, and where its owners with foreign passages are. */
export interface ReembedPort {
  /** The node's embedder id: passages are rewritten with its vectors. */
  embedderId: string;
  /** Why this node must not re-embed (it runs the hashing fallback of a model that did not load), or null. */
  refusal: string | null;
  /** Owners that stored a passage, in key order, after `after` (from the first when null). */
  owners(after: Scope | null): Iterable<Scope>;
  /** Whether the owner holds a passage another embedder made. */
  hasForeign(scope: Scope): Promise<boolean>;
}

export interface JobStartPort {
  /** Starts the owner's re-embedding, or joins its run when one is under way. */
  reembedOwner(scope: Scope): Promise<void>;
}

/** The field backfill steps (QueryService fits); each takes the version being built and stops once it is superseded. */
export interface FieldBackfillPort {
  /** The version to build, or null when it was superseded or the field deleted. */
  backfillTarget(ref: BackfillRef): object | null;
  /** The next `limit` document numbers after `cursor` in the field's scope, and how many there are in all. */
  backfillPage(ref: BackfillRef, cursor: number, limit: number): { docNos: number[]; total: number };
  /** Indexes those documents in one transaction; false when the version was superseded. */
  backfillApply(ref: BackfillRef, docNos: number[], progress: { done: number; total: number }): Promise<boolean>;
  backfillComplete(ref: BackfillRef): Promise<boolean>;
  backfillFailed(ref: BackfillRef, reason: string): Promise<void>;
}

/** Staged media, its provider routes and limits, and the owner's write of the derived text. */
export interface MediaPort {
  /** The staged (not yet captioned) media record and its bytes. */
  getPending(scope: Scope, docId: string): { doc: StoredDocument; bytes: Uint8Array } | undefined;
  /** Whether the document exists as a finished (captioned) record. */
  isDone(scope: Scope, docId: string): boolean;
  /** Stores the derived text in the owner's actor and indexes it; a no-op when already done. */
  complete(scope: Scope, docId: string, text: string, derivedBy: string): Promise<void>;
  routes: readonly MediaRoute[];
  limits: { captionBytes: number; transcriptBytes: number };
  /** Bearer key of the provider; undefined when the provider takes none. */
  providerKey: string | undefined;
  /** Bound of one provider call (temporal.yaml `media.caption_timeout_ms`). */
  timeoutMs: number;
}
