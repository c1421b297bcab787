import type { Config } from '../config.js';
import type { Scope } from '../domain/scope.js';
import { ownerRef, type ReembedOwnerInput } from '../jobs/contract.js';
import type { Logger } from '../log.js';
import type { JobRunner } from './client.js';
import { jobWorkflowId } from './search-attributes.js';
import { WorkerSupervisor } from './worker.js';

/** What a node re-embeds with, and how much at once. */
export interface ReembedSettings {
  /** The node's embedder id: what the passages become. */
  embedderId: string;
  /** False on a node running the hashing fallback of a model that did not load: it starts nothing. */
  allowed: boolean;
  /** Re-embedding activities the node runs at once (REEMBED_CONCURRENCY). */
  concurrency: number;
  /** Passages per page (REEMBED_PAGE_SIZE). */
  pageSize: number;
}

/**
 * `reembed-owner/<tenant>/<partition>/<entity_id>/<embedder>`: one run per owner and target embedder, so
 * the lazy start and the sweep join a run under way, and a later change of embedder is a new job.
 */
export function reembedWorkflowId(scope: Scope, embedder: string): string {
  return `${jobWorkflowId('reembed-owner', scope)}/${encodeURIComponent(embedder)}`;
}

/** Starts a lazily requested owner again after a failed start (Temporal up, the start failed) this many times at most. */
const REQUEST_ATTEMPTS = 5;

/**
 * Starts owners' re-embedding workflows and runs the node's bounded re-embedding worker. Workflows are
 * started for every owner that needs it; their activities wait in Temporal's queue (durably, across
 * restarts) until one of the worker's `concurrency` slots is free.
 */
export class ReembedJobs {
  /** Owners requested and not yet started (by key), whether trying, waiting for a retry or parked. */
  private readonly requested = new Set<string>();
  /** Owners waiting for Temporal to be ready: started by `resume`. */
  private readonly parked = new Map<string, Scope>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private stopped = false;

  constructor(
    private readonly runner: JobRunner,
    private readonly temporal: Config['temporal'],
    /** This node's re-embedding queue (`reembedTaskQueue`). */
    private readonly taskQueue: string,
    private readonly settings: ReembedSettings,
    private readonly log: Logger,
    /** Whether Temporal can take a start now (cached readiness). */
    private readonly isReady: () => boolean,
  ) {}

  /** Starts (or joins) the owner's re-embedding; throws AppError 503 when Temporal cannot take it. */
  async start(scope: Scope): Promise<void> {
    const t = this.temporal;
    const input: ReembedOwnerInput = {
      owner: ownerRef(scope),
      embedder: this.settings.embedderId,
      task_queue: this.taskQueue,
      page_size: this.settings.pageSize,
      slice_ms: t.reembed.slice_ms,
      activity: { start_to_close_timeout_ms: t.activities.start_to_close_timeout_ms, heartbeat_timeout_ms: t.activities.heartbeat_timeout_ms, retry: t.activities.retry },
    };
    const workflowId = reembedWorkflowId(scope, this.settings.embedderId);
    await this.runner.start({ job: 'reembed-owner', scope, workflowType: 'reembedOwner', workflowId, args: [input], unbounded: true });
  }

  /**
   * The owner's index found foreign passages on its first use: start its re-embedding in the background
   * (never on a node that may not re-embed). While Temporal is not ready (starting, restarting, down) the
   * owner waits for it (`resume`); a start that fails while it is ready is tried again a few times, then
   * left to the owner's next load or to the operator's sweep.
   */
  request(scope: Scope): void {
    if (!this.settings.allowed || this.stopped) return;
    const key = JSON.stringify([scope.tenant, scope.partition, scope.entityId]);
    if (this.requested.has(key)) return;
    this.requested.add(key);
    this.attempt(key, scope, 1);
  }

  /** Temporal is ready again: start every owner that waited for it. */
  resume(): void {
    const parked = [...this.parked];
    this.parked.clear();
    for (const [key, scope] of parked) this.attempt(key, scope, 1);
  }

  private attempt(key: string, scope: Scope, attempt: number): void {
    if (this.stopped) return;
    if (!this.isReady()) {
      this.parked.set(key, scope);
      return;
    }
    this.start(scope).then(
      () => this.requested.delete(key),
      (err: unknown) => {
        if (this.stopped) return;
        if (!this.isReady()) {
          this.parked.set(key, scope);
          return;
        }
        if (attempt >= REQUEST_ATTEMPTS) {
          this.requested.delete(key);
          const workflowId = reembedWorkflowId(scope, this.settings.embedderId);
          this.log.warn({ err, workflowId }, "re-embedding could not be started; it starts on the owner's next load, or run `npm run reembed`");
          return;
        }
        const timer = setTimeout(() => (this.timers.delete(timer), this.attempt(key, scope, attempt + 1)), this.temporal.health_check_interval_ms * 2 ** attempt);
        timer.unref();
        this.timers.add(timer);
      },
    );
  }

  /** The activity-only worker of the re-embedding queue; none on a node that may not re-embed. */
  worker(address: string, activities: object): WorkerSupervisor | null {
    if (!this.settings.allowed) return null;
    const t = this.temporal;
    return new WorkerSupervisor({
      address,
      namespace: t.namespace,
      taskQueue: this.taskQueue,
      activities,
      log: this.log,
      retryDelayMs: t.health_check_interval_ms,
      workflows: false,
      maxConcurrentActivities: this.settings.concurrency,
    });
  }

  stop(): void {
    this.stopped = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }
}
