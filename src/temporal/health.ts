import type { Connection } from '@temporalio/client';
import type { Readiness } from '../jobs/port.js';

export interface HealthOptions {
  intervalMs: number;
  /** Bound of one check; a check that does not answer in time counts as down. */
  timeoutMs: number;
  /** Extra condition (the worker running); its detail is reported when it fails. */
  worker: () => Readiness;
  describe: string;
}

/**
 * Cached readiness of the Temporal frontend, re-checked every `intervalMs` with a cheap gRPC health
 * call, so `GET /status` and the 503 gate of job routes never wait on the network. Listeners hear
 * about every transition to down (job runs in flight give up instead of hanging), and after every
 * check that finds it ready (work that waited for Temporal goes on).
 */
export class TemporalHealth {
  private server: Readiness = { ready: false, detail: 'not checked yet' };
  private timer: NodeJS.Timeout | null = null;
  private readonly downListeners = new Set<(detail: string) => void>();
  private readonly readyListeners = new Set<() => void>();
  private checking: Promise<void> | null = null;

  constructor(
    private readonly connection: Connection,
    private readonly options: HealthOptions,
  ) {}

  /** Runs the first check, then keeps checking in the background. */
  async start(): Promise<void> {
    await this.check();
    this.timer = setInterval(() => void this.check(), this.options.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  readiness(): Readiness {
    if (!this.server.ready) return this.server;
    const worker = this.options.worker();
    return worker.ready ? { ready: true, detail: this.options.describe } : worker;
  }

  /** Registers a listener for "went down"; returns its removal. */
  onDown(listener: (detail: string) => void): () => void {
    this.downListeners.add(listener);
    return () => this.downListeners.delete(listener);
  }

  /** Registers a listener called after every check that finds Temporal ready (frontend and worker); returns its removal. */
  onReady(listener: () => void): () => void {
    this.readyListeners.add(listener);
    return () => this.readyListeners.delete(listener);
  }

  /** Checks now (at most one check at a time); used on a schedule and after a failed call. */
  check(): Promise<void> {
    this.checking ??= this.probe().finally(() => (this.checking = null));
    return this.checking;
  }

  private async probe(): Promise<void> {
    try {
      await this.connection.withDeadline(Date.now() + this.options.timeoutMs, () => this.connection.healthService.check({}));
      this.server = { ready: true };
      if (this.readiness().ready) for (const listener of this.readyListeners) listener();
    } catch (error) {
      const detail = `Temporal at ${this.options.describe} is not reachable: ${error instanceof Error ? error.message : String(error)}`;
      const wasReady = this.server.ready;
      this.server = { ready: false, detail };
      if (wasReady) for (const listener of this.downListeners) listener(detail);
    }
  }
}
