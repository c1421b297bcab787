import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../log.js';
import type { DevServer, DevServerExit } from './dev-server.js';

/** When a dead or failed server is started again. */
export interface RestartPolicy {
  /** Pause before the first restart; doubled for each further attempt. */
  initialDelayMs: number;
  maxDelayMs: number;
  /** A server that ran this long before it died counts as healthy: the next restart waits `initialDelayMs` again. */
  stableMs: number;
}

export const DEFAULT_RESTART_POLICY: RestartPolicy = { initialDelayMs: 500, maxDelayMs: 30_000, stableMs: 60_000 };

/** The pause before attempt `attempt` (1-based) after a death or a failed start: 0.5 s, 1 s, 2 s, ... up to the maximum. */
export function restartDelay(attempt: number, policy: RestartPolicy): number {
  return Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** Math.max(0, attempt - 1));
}

/** Where the server listens: fixed by its first start, so every restart serves the same address and UI. */
export interface DevServerPorts {
  port: number;
  uiPort: number;
}

export interface SupervisorOptions {
  /** Starts one server process: on `ports` once known (restarts), else on the configured ones. */
  start(ports: DevServerPorts | null, signal: AbortSignal): Promise<DevServer>;
  log: Logger;
  policy?: RestartPolicy;
  /** Each (re)started server, once it answers (records its pid for orphan cleanup). */
  onStarted?(server: DevServer): void;
  /** After `stop` has stopped the server (forgets its pid). */
  onStopped?(): void;
}

/** What `GET /status` shows of the supervised server. */
export interface SupervisorStatus {
  state: 'starting' | 'running' | 'restarting' | 'stopped';
  /** Why it is not running (its last exit or failed start), when it is not. */
  detail: string | null;
  restarts: number;
  lastRestartAt: Date | null;
}

/**
 * Runs the embedded dev server and starts it again, with doubling pauses, whenever it exits or fails
 * to start, on the same ports and database file (the caller's `start`), until `stop`. Each restart
 * is logged (warn, with the attempt and the exit code or signal) and counted in `status()`.
 */
export class DevServerSupervisor {
  private readonly abort = new AbortController();
  private readonly policy: RestartPolicy;
  private server: DevServer | null = null;
  private ports: DevServerPorts | null = null;
  private loop: Promise<void> | null = null;
  private readonly first: Promise<DevServer>;
  private settleFirst!: { resolve: (server: DevServer) => void; reject: (reason: unknown) => void };
  private current: SupervisorStatus = { state: 'starting', detail: 'the embedded Temporal dev server is starting', restarts: 0, lastRestartAt: null };

  constructor(private readonly options: SupervisorOptions) {
    this.policy = options.policy ?? DEFAULT_RESTART_POLICY;
    this.first = new Promise((resolve, reject) => (this.settleFirst = { resolve, reject }));
  }

  /**
   * Starts supervising; resolves with the first server that answers (later ones keep its address),
   * however many attempts that takes, and rejects only when stopped before.
   */
  start(): Promise<DevServer> {
    this.loop ??= this.run()
      .catch((err: unknown) => this.options.log.error({ err }, 'Temporal dev server supervision failed'))
      .finally(() => this.settleFirst.reject(this.abort.signal.reason ?? new Error('Temporal dev server supervision ended')));
    return this.first;
  }

  status(): SupervisorStatus {
    return this.current;
  }

  /** Ends supervision: a start under way is aborted, a running server stopped. */
  async stop(): Promise<void> {
    this.abort.abort(new Error('the service is shutting down'));
    await this.loop;
    await this.server?.stop();
    this.server = null;
    this.options.onStopped?.();
    this.current = { ...this.current, state: 'stopped', detail: 'the embedded Temporal dev server was stopped' };
  }

  private async run(): Promise<void> {
    const { signal } = this.abort;
    let attempt = 0;
    for (let started = 0; !signal.aborted; ) {
      if (attempt > 0 && !(await pause(restartDelay(attempt, this.policy), signal))) return;
      let server: DevServer;
      try {
        server = await this.options.start(this.ports, signal);
      } catch (error) {
        if (signal.aborted) return;
        attempt++;
        const detail = `the embedded Temporal dev server did not start: ${error instanceof Error ? error.message : String(error)}`;
        this.current = { ...this.current, state: started === 0 ? 'starting' : 'restarting', detail };
        this.options.log.warn({ err: error, attempt, retry_in_ms: restartDelay(attempt, this.policy) }, 'Temporal dev server did not start; retrying');
        continue;
      }
      this.server = server;
      this.ports ??= portsOf(server);
      if (started++ > 0) {
        this.current = { ...this.current, restarts: this.current.restarts + 1, lastRestartAt: new Date() };
        this.options.log.info({ attempt, address: server.address, pid: server.pid, restarts: this.current.restarts }, 'Temporal dev server restarted');
      }
      this.current = { ...this.current, state: 'running', detail: null };
      this.options.onStarted?.(server);
      this.settleFirst.resolve(server);

      const upAt = Date.now();
      const exit = await Promise.race([server.exited, abortedPromise(signal)]);
      if (exit === null) return;
      this.server = null;
      attempt = Date.now() - upAt >= this.policy.stableMs ? 1 : attempt + 1;
      const detail = `the embedded Temporal dev server ${describeExit(exit)}; restart ${attempt} under way`;
      this.current = { ...this.current, state: 'restarting', detail };
      this.options.log.warn({ attempt, code: exit.code, signal: exit.signal, retry_in_ms: restartDelay(attempt, this.policy) }, 'Temporal dev server exited; restarting it');
    }
  }
}

function portsOf(server: DevServer): DevServerPorts {
  const port = Number(server.address.split(':').pop());
  const uiPort = server.uiUrl === null ? 0 : Number(new URL(server.uiUrl).port);
  return { port, uiPort };
}

export function describeExit({ code, signal }: DevServerExit): string {
  return signal !== null ? `was killed by ${signal}` : `exited with code ${code}`;
}

/** Waits `ms`; false when the wait was cut short by `signal`. */
async function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  try {
    await sleep(ms, undefined, { signal });
    return true;
  } catch {
    return false;
  }
}

/** Resolves null once `signal` aborts (never settles otherwise). */
function abortedPromise(signal: AbortSignal): Promise<null> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve(null);
    else signal.addEventListener('abort', () => resolve(null), { once: true });
  });
}
