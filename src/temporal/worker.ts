import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, NativeConnection, Runtime, Worker, type ActivityInterceptorsFactory, type WorkflowBundle } from '@temporalio/worker';
import type { LogLevel, Logger as TemporalLogger, LogMetadata } from '@temporalio/common';
import type { Readiness } from '../jobs/port.js';
import type { Logger } from '../log.js';

export interface WorkerOptions {
  address: string;
  namespace: string;
  taskQueue: string;
  activities: object;
  log: Logger;
  /** Pause between attempts to (re)start the worker after it stopped or could not connect. */
  retryDelayMs: number;
  /** false: an activity-only worker (for a queue of bounded work); workflows run on the main queue. Default true. */
  workflows?: boolean;
  /** Activities this worker runs at once (the SDK's default when absent). */
  maxConcurrentActivities?: number;
}

let bundle: Promise<WorkflowBundle> | null = null;

/**
 * The workflow code, bundled once per process from workflows/index (the .ts source under tsx and
 * vitest, the compiled .js under dist/). Workers started later in the process reuse the bundle.
 */
export function workflowBundle(log: Logger): Promise<WorkflowBundle> {
  bundle ??= bundleWorkflowCode({ workflowsPath: workflowsPath(), logger: bundlerLogger(log) }).then(({ code }) => ({ code }));
  bundle.catch(() => (bundle = null));
  return bundle;
}

function workflowsPath(): string {
  for (const ext of ['ts', 'js']) {
    const path = fileURLToPath(new URL(`../../workflows/index.${ext}`, import.meta.url));
    if (existsSync(path)) return path;
  }
  throw new Error('workflows/index.ts (or its compiled index.js) not found next to src/');
}

/**
 * Runs a Temporal worker in the service's own process and restarts it when it stops unexpectedly
 * (for example when the cluster went away), until `stop`.
 */
export class WorkerSupervisor {
  private worker: Worker | null = null;
  private state: Readiness = { ready: false, detail: 'Temporal worker starting' };
  private stopping = false;
  private loop: Promise<void> | null = null;

  constructor(private readonly options: WorkerOptions) {}

  readiness(): Readiness {
    return this.state;
  }

  /** Starts the worker loop; resolves after the first attempt (running, or failed and retrying). */
  async start(): Promise<void> {
    routeSdkLogs(this.options.log);
    let code: WorkflowBundle | null;
    try {
      code = this.options.workflows === false ? null : await workflowBundle(this.options.log);
    } catch (error) {
      this.state = { ready: false, detail: `Temporal worker cannot start: its workflow code did not bundle (${error instanceof Error ? error.message : String(error)})` };
      throw error;
    }
    let firstAttempt!: () => void;
    const attempted = new Promise<void>((resolve) => (firstAttempt = resolve));
    this.loop = this.runLoop(code, firstAttempt);
    await attempted;
  }

  /** Asks the worker to finish its tasks and waits at most `timeoutMs` for it. */
  async stop(timeoutMs: number): Promise<void> {
    this.stopping = true;
    try {
      this.worker?.shutdown();
    } catch {
      /* already stopping */
    }
    if (this.loop) await Promise.race([this.loop, new Promise((resolve) => setTimeout(resolve, timeoutMs).unref())]);
  }

  private async runLoop(code: WorkflowBundle | null, firstAttempt: () => void): Promise<void> {
    const { address, namespace, taskQueue, activities, log, maxConcurrentActivities } = this.options;
    const bounds = maxConcurrentActivities === undefined ? {} : { maxConcurrentActivityTaskExecutions: maxConcurrentActivities };
    while (!this.stopping) {
      let connection: NativeConnection | null = null;
      try {
        connection = await NativeConnection.connect({ address });
        this.worker = await Worker.create({
          connection, namespace, taskQueue, activities, ...(code ? { workflowBundle: code } : {}), ...bounds,
          interceptors: { activity: [withoutTaskToken] },
          shutdownGraceTime: '5s',
        });
        const running = this.worker.run();
        this.state = { ready: true };
        log.info({ taskQueue, namespace }, 'temporal worker running');
        firstAttempt();
        await running;
      } catch (error) {
        this.state = { ready: false, detail: `Temporal worker not running: ${error instanceof Error ? error.message : String(error)}` };
        log.warn({ err: error, taskQueue }, 'temporal worker stopped; retrying');
      } finally {
        this.worker = null;
        await connection?.close().catch(() => undefined);
      }
      firstAttempt();
      if (!this.stopping) await new Promise((resolve) => setTimeout(resolve, this.options.retryDelayMs).unref());
    }
    this.state = { ready: false, detail: 'Temporal worker stopped' };
  }
}

/**
 * The SDK puts the activity's task token on every activity log line; the token completes or fails the
 * task from anywhere, so it is a credential and stays out of the log.
 */
const withoutTaskToken: ActivityInterceptorsFactory = () => ({
  outbound: {
    getLogAttributes: (input, next) => {
      const { taskToken: _token, ...attributes } = next(input);
      return attributes;
    },
  },
});

let sdkLog: Logger | null = null;

/**
 * The SDK (worker, workflow and activity `log`) logs through one process-wide Runtime, installed on
 * first use; it writes to the most recently started service's logger instead of the console.
 */
function routeSdkLogs(log: Logger): void {
  if (sdkLog === null) {
    const levels: Record<LogLevel, 'trace' | 'debug' | 'info' | 'warn' | 'error'> = { TRACE: 'trace', DEBUG: 'debug', INFO: 'info', WARN: 'warn', ERROR: 'error' };
    const at = (level: LogLevel) => (message: string, meta?: LogMetadata) => sdkLog?.[levels[level]]({ ...meta }, message);
    const logger: TemporalLogger = { log: (level, message, meta) => at(level)(message, meta), trace: at('TRACE'), debug: at('DEBUG'), info: at('INFO'), warn: at('WARN'), error: at('ERROR') };
    try {
      // Core (Rust) logs are forwarded too, so connection retries reach the structured log, not stderr.
      Runtime.install({ logger, telemetryOptions: { logging: { filter: { core: 'WARN', other: 'ERROR' }, forward: {} } } });
    } catch {
      /* a Runtime already exists in this process (installed elsewhere); its logger stays */
    }
  }
  sdkLog = log;
}

/** The bundler's webpack chatter goes to debug; its warnings and errors to our log. */
function bundlerLogger(log: Logger): TemporalLogger {
  const at = (level: 'debug' | 'warn' | 'error') => (message: string, meta?: LogMetadata) => log[level](meta ?? {}, message);
  return { log: (_level, message, meta) => at('debug')(message, meta), trace: at('debug'), debug: at('debug'), info: at('debug'), warn: at('warn'), error: at('error') };
}
