import { Client, Connection, type WorkflowStartOptions } from '@temporalio/client';
import type { Logger } from '../log.js';
import { jobError, temporalUnavailable } from './failures.js';
import type { TemporalHealth } from './health.js';
import { boundedRetryInterceptor } from './retry.js';
import { jobMemo, jobSearchAttributes, jobWorkflowId, type JobScope } from './search-attributes.js';

export interface JobRunnerOptions {
  connection: Connection;
  health: TemporalHealth;
  namespace: string;
  taskQueue: string;
  /** Bound of the start call; an unreachable cluster fails within it. */
  startTimeoutMs: number;
  /** The workflow's execution timeout; a caller never waits longer than this plus the start bound. */
  executionTimeoutMs: number;
  /** `Retry-After` (seconds) of the 503 answered while Temporal cannot serve. */
  retryAfterS: number;
  /** Whether the cluster knows Engram's search attributes (else runs carry the memo only). */
  searchAttributes: () => Promise<boolean>;
  log: Logger;
}

export interface JobRequest {
  /** Job name: the first part of the workflow id and the EngramJob search attribute. */
  job: string;
  /** The owner scope, or a tenant scope for tenant-wide jobs. */
  scope: JobScope;
  /** Registered workflow function name (workflows/index.ts). */
  workflowType: string;
  args: unknown[];
  /** Overrides the per-scope workflow id, for jobs that run once per record (e.g. captioning one media). */
  workflowId?: string;
  /**
   * What happens when a run with the same id is still running: `USE_EXISTING` (default) joins it;
   * `TERMINATE_EXISTING` replaces it (a newer request makes the running one obsolete).
   */
  conflict?: 'USE_EXISTING' | 'TERMINATE_EXISTING';
  /** Runs without an execution timeout: a job whose length grows with the owner's data (re-embedding). */
  unbounded?: boolean;
}

/**
 * A client connection that does not connect until first used, so startup never blocks on the cluster.
 * A failing call is retried for at most `connectTimeoutMs` (retry.ts), so no call outlives a dead cluster by more.
 *
 * Its channel tries to reconnect at least every `reconnectMs` (the readiness check's interval). gRPC's
 * own backoff grows 1.6x per failed attempt up to 120 s while the cluster is away, and the channel fails
 * every call at once until its next attempt: after 30 s away, readiness (and every job waiting on it, such
 * as an erasure requested meanwhile) lagged the cluster's return by 2.8 and 14.7 s in two runs, and the lag
 * can reach the whole backoff after a longer outage.
 */
export function lazyConnection(address: string, connectTimeoutMs: number, reconnectMs: number): Connection {
  return Connection.lazy({
    address,
    connectTimeout: connectTimeoutMs,
    interceptors: [boundedRetryInterceptor(connectTimeoutMs)],
    channelArgs: { 'grpc.initial_reconnect_backoff_ms': Math.min(reconnectMs, GRPC_INITIAL_BACKOFF_MS), 'grpc.max_reconnect_backoff_ms': reconnectMs },
  });
}

/** gRPC's default first reconnect delay; a shorter check interval shortens it too. */
const GRPC_INITIAL_BACKOFF_MS = 1000;

/**
 * Starts a job's workflow and waits for its result, as routes need it. One workflow id per job and
 * scope with conflict policy USE_EXISTING: a second request for a scope whose job is running joins
 * that run (same result) instead of starting another, so one scope never has two runs at once.
 *
 * Fails fast with 503 when Temporal is not ready, and gives up with 503 when it goes away mid-wait.
 */
export class JobRunner {
  private readonly client: Client;

  constructor(private readonly options: JobRunnerOptions) {
    this.client = new Client({ connection: options.connection, namespace: options.namespace });
  }

  /** Starts the job (or joins its running run) and waits for its result. */
  execute<R>(request: JobRequest): Promise<R> {
    return this.call(request, true) as Promise<R>;
  }

  /** Starts the job and returns once Temporal has accepted it (the run continues on its own). */
  async start(request: JobRequest): Promise<{ workflowId: string; runId: string }> {
    return (await this.call(request, false)) as { workflowId: string; runId: string };
  }

  private async call(request: JobRequest, awaitResult: boolean): Promise<unknown> {
    const { connection, health } = this.options;
    const ready = health.readiness();
    if (!ready.ready) throw temporalUnavailable(`${request.job} needs Temporal, which is not ready (${ready.detail}); retry later`, this.options.retryAfterS);

    const abort = new AbortController();
    let interrupted: string | null = null;
    const stopWaiting = (reason: string): void => {
      interrupted ??= reason;
      abort.abort(new Error(reason));
    };
    const removeListener = health.onDown((detail) => stopWaiting(detail));
    const limit = setTimeout(() => stopWaiting('the job did not finish in time'), this.options.startTimeoutMs + this.options.executionTimeoutMs);
    try {
      const startOptions = await this.startOptions(request);
      return await connection.withAbortSignal(abort.signal, async () => {
        const handle = await connection.withDeadline(Date.now() + this.options.startTimeoutMs, () =>
          this.client.workflow.start(request.workflowType, startOptions),
        );
        return awaitResult ? await handle.result() : { workflowId: handle.workflowId, runId: handle.firstExecutionRunId };
      });
    } catch (error) {
      const mapped = jobError(request.job, error, interrupted, this.options.retryAfterS);
      if (mapped.code === 'unavailable') void health.check();
      if (mapped.status >= 500) this.options.log.warn({ err: error, job: request.job, code: mapped.code }, 'job failed');
      throw mapped;
    } finally {
      clearTimeout(limit);
      removeListener();
    }
  }

  private async startOptions(request: JobRequest): Promise<WorkflowStartOptions> {
    const withAttributes = await this.options.searchAttributes();
    return {
      taskQueue: this.options.taskQueue,
      workflowId: request.workflowId ?? jobWorkflowId(request.job, request.scope),
      args: request.args,
      workflowIdConflictPolicy: request.conflict ?? 'USE_EXISTING',
      workflowIdReusePolicy: 'ALLOW_DUPLICATE',
      ...(request.unbounded ? {} : { workflowExecutionTimeout: this.options.executionTimeoutMs }),
      memo: jobMemo(request.job, request.scope),
      ...(withAttributes ? { typedSearchAttributes: jobSearchAttributes(request.job, request.scope) } : {}),
    };
  }
}
