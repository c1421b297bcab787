import { createActivities, type ActivityPorts } from '../../activities/index.js';
import type { Config } from '../config.js';
import type { Scope, TenantScope } from '../domain/scope.js';
import { ownerRef, type BackfillFieldInput, type BackfillRef, type CaptionMediaInput, type ConsolidateInput, type ConsolidateResult } from '../jobs/contract.js';
import type { Readiness } from '../jobs/port.js';
import type { Logger } from '../log.js';
import { Client } from '@temporalio/client';
import { JobRunner, lazyConnection } from './client.js';
import { ErasureJobs, type ErasureStart } from './erasures.js';
import { TemporalHealth } from './health.js';
import { deleteOwnerRuns } from './owner-runs.js';
import { hostingQueues } from './queues.js';
import { ReembedJobs, type ReembedSettings } from './reembed.js';
import { ensureSearchAttributes, jobWorkflowId } from './search-attributes.js';
import { WorkerSupervisor } from './worker.js';

export interface JobsDeps {
  log: Logger;
  /** What this node's activities use (built by the composition root); every activity is registered. */
  activities: Omit<ActivityPorts, 'starts' | 'runs' | 'placement'>;
  /** This node and where the scopes live (src/placement/node-placement.ts). */
  placement: JobsPlacement;
  /** Documents per backfill page (`BACKFILL_PAGE_SIZE`). */
  backfillPageSize: number;
  reembed: ReembedSettings;
}

/** What the jobs need to know of placement: this node's id, each scope's node, and the check of the activities. */
export interface JobsPlacement {
  readonly nodeId: string;
  hostOf(scope: TenantScope): string;
  assertHosted(scope: TenantScope): void;
}

/** The job engine once Temporal's address is known: client, workers and readiness monitor. */
export interface Engine {
  readiness(): Readiness;
  consolidate(scope: Scope): Promise<ConsolidateResult>;
  captionMedia(input: { scope: Scope; docId: string; route: string }): Promise<void>;
  backfillField(field: BackfillRef): Promise<void>;
  requestReembed(scope: Scope): void;
  /** Starts (or joins) an owner's erasure, now or once Temporal is ready. */
  requestErasure(erasure: ErasureStart): void;
  /** Resolves once the workers and the readiness monitor made their first attempt (running or retrying). */
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Wires the client, the workers of this node (workflows and activities; the bounded re-embedding
 * queue) and the readiness monitor against the frontend at `address`. Nothing here waits on the
 * cluster: an unreachable one makes readiness say so and job calls answer 503 until it comes back.
 */
export function createEngine(t: Config['temporal'], address: string, uiUrl: string | null, deps: JobsDeps): Engine {
  const connection = lazyConnection(address, t.connect_timeout_ms, t.health_check_interval_ms);
  // The activities start jobs themselves (the sweep starts owners' re-embedding): through the runner below.
  // Erasure deletes the owner's runs through a client of its own.
  const client = new Client({ connection, namespace: t.namespace });
  const activities = createActivities({
    ...deps.activities,
    starts: { reembedOwner: (scope) => reembed.start(scope) },
    runs: { deleteOwnerRuns: (scope, done, heartbeat) => deleteOwnerRuns(client, scope, done, heartbeat) },
    placement: {
      assertHosted: (scope) => deps.placement.assertHosted(scope),
      queuesOf: (scope) => hostingQueues(t.task_queue, deps.placement.hostOf(scope)),
    },
  });
  // Workflows (which hold no data) run on any node, from the shared queue; the activities on owner data run
  // on the queue of the node hosting the owner (workflows/placement.ts), which only this node polls.
  const here = hostingQueues(t.task_queue, deps.placement.nodeId);
  const supervise = (taskQueue: string, workflows: boolean) =>
    new WorkerSupervisor({ address, namespace: t.namespace, taskQueue, activities, log: deps.log, retryDelayMs: t.health_check_interval_ms, workflows });
  const worker = supervise(t.task_queue, true);
  const nodeWorker = supervise(here.activities, false);
  const health = new TemporalHealth(connection, {
    intervalMs: t.health_check_interval_ms,
    timeoutMs: Math.min(t.connect_timeout_ms, t.health_check_interval_ms),
    worker: () => (worker.readiness().ready ? nodeWorker.readiness() : worker.readiness()),
    describe: `${address} (namespace ${t.namespace}, task queue ${t.task_queue}${uiUrl ? `, UI ${uiUrl}` : ''})`,
  });
  let attributes: Promise<boolean> | null = null;
  const runner = new JobRunner({
    connection,
    health,
    namespace: t.namespace,
    taskQueue: t.task_queue,
    startTimeoutMs: t.connect_timeout_ms,
    executionTimeoutMs: t.workflows.execution_timeout_ms,
    retryAfterS: t.health_check_interval_ms / 1000,
    log: deps.log,
    searchAttributes: () => {
      attributes ??= ensureSearchAttributes(connection, t.namespace, t.connect_timeout_ms).then((ok) => {
        if (!ok) deps.log.warn({ namespace: t.namespace }, 'cannot register Engram search attributes; job runs carry the memo only');
        return ok;
      });
      attributes.catch(() => (attributes = null));
      return attributes;
    },
  });

  const reembed = new ReembedJobs(runner, t, here.reembed, deps.reembed, deps.log, () => health.readiness().ready);
  const reembedWorker = reembed.worker(address, activities);
  const erasures = new ErasureJobs(runner, t, deps.log, () => health.readiness().ready);
  // Owners whose re-embedding or erasure could not start while Temporal was away start once it is back.
  health.onReady(() => {
    reembed.resume();
    erasures.resume();
  });

  return {
    readiness: () => health.readiness(),
    consolidate: (scope) =>
      runner.execute<ConsolidateResult>({
        job: 'consolidate',
        scope,
        workflowType: 'consolidate',
        args: [{ owner: ownerRef(scope), activity: { start_to_close_timeout_ms: t.activities.start_to_close_timeout_ms, retry: t.activities.retry } } satisfies ConsolidateInput],
      }),
    captionMedia: async ({ scope, docId, route }) => {
      const input: CaptionMediaInput = {
        owner: ownerRef(scope),
        doc_id: docId,
        route,
        // The provider call is bounded by caption_timeout_ms; the rest of the attempt embeds and writes.
        activity: { start_to_close_timeout_ms: t.media.caption_timeout_ms * 2, retry: t.media.retry },
      };
      await runner.execute({
        job: 'caption-media',
        scope,
        workflowType: 'captionMedia',
        workflowId: `${jobWorkflowId('caption-media', scope)}/${encodeURIComponent(docId)}`,
        args: [input],
      });
    },
    backfillField: async (field) => {
      const input: BackfillFieldInput = {
        field,
        page_size: deps.backfillPageSize,
        slice_ms: Math.max(1000, Math.floor(t.activities.start_to_close_timeout_ms / 2)),
        activity: { start_to_close_timeout_ms: t.activities.start_to_close_timeout_ms, heartbeat_timeout_ms: t.activities.heartbeat_timeout_ms, retry: t.activities.retry },
      };
      const scope = { tenant: field.tenant, partition: field.partition_scope };
      // One run per field: a re-declaration terminates the running backfill of the old definition.
      await runner.start({
        job: 'backfill-field',
        scope,
        workflowType: 'backfillField',
        workflowId: `${jobWorkflowId('backfill-field', scope)}/${encodeURIComponent(field.name)}`,
        args: [input],
        conflict: 'TERMINATE_EXISTING',
      });
    },
    requestReembed: (scope) => reembed.request(scope),
    requestErasure: (erasure) => erasures.request(erasure),
    start: async () => {
      await Promise.all([health.start(), worker.start(), nodeWorker.start(), reembedWorker?.start()]);
      deps.log.info({ address, namespace: t.namespace, taskQueue: t.task_queue, nodeTaskQueue: here.activities, ui: uiUrl, ready: health.readiness().ready }, 'temporal jobs started');
    },
    stop: async () => {
      health.stop();
      reembed.stop();
      erasures.stop();
      await Promise.all([worker.stop(10_000), nodeWorker.stop(10_000), reembedWorker?.stop(10_000)]);
      await connection.close().catch(() => undefined);
    },
  };
}
