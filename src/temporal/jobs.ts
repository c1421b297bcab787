import type { Config } from '../config.js';
import type { Scope } from '../domain/scope.js';
import type { JobsPort, JobsStatus, Readiness } from '../jobs/port.js';
import { embeddedDevServer } from './embedded.js';
import { createEngine, type Engine, type JobsDeps } from './engine.js';
import type { ErasureStart } from './erasures.js';
import { temporalUnavailable } from './failures.js';
import { workflowBundle } from './worker.js';

export type { JobsDeps } from './engine.js';

export type Jobs = JobsPort & {
  /** Runs the captioning/transcription workflow of one staged media record and resolves once its text is indexed. */
  captionMedia(input: { scope: Scope; docId: string; route: string }): Promise<void>;
  /** Starts an owner's re-embedding in the background when this node may re-embed (src/temporal/reembed.ts). */
  requestReembed(scope: Scope): void;
  /** Starts (or joins) an owner's erasure in the background, now or once Temporal is ready (src/temporal/erasures.ts). */
  requestErasure(erasure: ErasureStart): void;
  /**
   * Resolves once the background start has settled: Temporal's client, workers and readiness monitor
   * made their first attempt (ready, or retrying). With an embedded server that is after it first
   * answered. HTTP does not wait for it; tests and benchmarks that need Temporal at once do.
   */
  started: Promise<void>;
  stop(): Promise<void>;
};

/**
 * Temporal-backed jobs, returned at once: HTTP serves while Temporal starts in the background (the
 * embedded dev server, supervised, when configured; then the client, the workers and the readiness
 * monitor). Until it is ready, and whenever it is not, readiness says why and job calls answer 503;
 * re-embedding requested meanwhile waits for it. Throws only when the embedded server cannot be
 * started at all (no CLI).
 */
export function startTemporalJobs(t: Config['temporal'], dataDir: string, deps: JobsDeps): Jobs {
  const server = t.embedded ? embeddedDevServer(t, dataDir, deps.log) : null;
  const shutdown = new AbortController();
  let engine: Engine | null = null;
  // Owners reported before the engine exists; handed to it once it does (it waits for readiness).
  const early = new Map<string, Scope>();
  const earlyErasures = new Map<string, ErasureStart>();
  const retryAfterS = t.health_check_interval_ms / 1000;

  const startup = (async () => {
    // The workflow bundle (CPU) is built while the dev server starts (waiting on its process).
    workflowBundle(deps.log).catch(() => undefined);
    const first = server ? await server.start() : null;
    if (shutdown.signal.aborted) return;
    engine = createEngine(t, first?.address ?? t.address, first?.uiUrl ?? null, deps);
    for (const scope of early.values()) engine.requestReembed(scope);
    early.clear();
    for (const erasure of earlyErasures.values()) engine.requestErasure(erasure);
    earlyErasures.clear();
    await engine.start();
  })();
  startup.catch((err: unknown) => {
    if (!shutdown.signal.aborted) deps.log.error({ err }, 'Temporal jobs could not start');
  });

  const readiness = (): JobsStatus => {
    const supervised = server?.status();
    const base: Readiness =
      supervised && supervised.state !== 'running'
        ? { ready: false, detail: supervised.detail ?? `the embedded Temporal dev server is ${supervised.state}` }
        : (engine?.readiness() ?? { ready: false, detail: `Temporal${server ? '' : ` at ${t.address}`} is starting` });
    if (!supervised) return base;
    return { ...base, restarts: supervised.restarts, last_restart_at: supervised.lastRestartAt?.toISOString() ?? null };
  };
  /** The engine, while it exists and its dev server runs; else the 503 every job call answers at once. */
  const running = (job: string): Engine => {
    if (engine && (server?.status().state ?? 'running') === 'running') return engine;
    throw temporalUnavailable(`${job} needs Temporal, which is not ready (${readiness().detail ?? 'starting'}); retry later`, retryAfterS);
  };

  return {
    readiness,
    started: startup.catch(() => undefined),
    consolidate: async (scope) => running('consolidate').consolidate(scope),
    captionMedia: async (input) => running('caption-media').captionMedia(input),
    backfillField: async (field) => running('backfill-field').backfillField(field),
    requestReembed: (scope) => {
      if (engine) engine.requestReembed(scope);
      else early.set(JSON.stringify([scope.tenant, scope.partition, scope.entityId]), scope);
    },
    requestErasure: (erasure) => {
      if (engine) engine.requestErasure(erasure);
      else earlyErasures.set(erasure.receipt_id, erasure);
    },
    stop: async () => {
      shutdown.abort();
      // A dev server still starting is killed; a started engine finishes its start, then its workers
      // drain while the server still runs, and the server stops last.
      if (!engine) await server?.stop();
      await startup.catch(() => undefined);
      await engine?.stop();
      await server?.stop();
    },
  };
}
