import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ActivityPorts, ReembedPort } from '../activities/index.js';
import type Koa from 'koa';
import type { DocumentServices, OwnerDocumentsDeps } from './actors/owner-documents.js';
import { ActorRegistry } from './actors/registry.js';
import { KeyFileRing } from './auth/key-file.js';
import { KeyRing, type KeyLookup } from './auth/keys.js';
import { systemClock, type Clock } from './clock.js';
import type { Config } from './config.js';
import type { DocumentWriteHook } from './domain/documents.js';
import type { Scope } from './domain/scope.js';
import { createApp } from './http/app.js';
import { answerClientErrors } from './http/client-errors.js';
import type { AppDeps, AppState } from './http/context.js';
import { ListCursors } from './http/list-cursors.js';
import { createLogger, ownerDigester, type Logger } from './log.js';
import { NodePlacement } from './placement/node-placement.js';
import { ScopeTransfers } from './placement/scope-transfers.js';
import type { ScopeTransferDeps } from './placement/transfer-port.js';
import { inScope, scopeOwners } from './store/scope-owners.js';
import { composeOwnerLifecycle } from './owner-lifecycle.js';
import { QueryService } from './query/service.js';
import { loadMasterKey } from './store/blobs.js';
import { DocumentRecords, DocumentStore } from './store/documents.js';
import { GraphStore } from './store/graph.js';
import { IdempotencyRecords } from './store/idempotency.js';
import { openStore, type Store } from './store/lmdb.js';
import { OwnerHolds } from './store/owner-holds.js';
import { claimPidFile } from './store/pid-file.js';
import { closeDataDir } from './store/private-files.js';
import { ReembedRecords } from './store/reembed.js';
import type { Embedder } from './vector/embedder.js';
import { createEmbedder, type NodeEmbedder } from './vector/embedders.js';
import { timeCommits } from './metrics/commit-timer.js';
import { measuredEmbedder } from './metrics/measured-embedder.js';
import { Metrics } from './metrics/metrics.js';
import { VectorIndexes } from './vector/indexes.js';
import { disabledJobs } from './temporal/disabled-jobs.js';
import type { Jobs, JobsDeps } from './temporal/jobs.js';

/** Everything wired, nothing listening: tests dispatch requests to `app.callback()` in process. */
export interface ComposedService {
  deps: AppDeps;
  app: Koa<AppState>;
  /** Reads `API_KEYS_FILE` again (on SIGHUP) and logs the outcome; a bad file keeps the keys there were. */
  reloadKeys(): void;
  /** Temporal starts in the background (HTTP serves meanwhile); this settles once its first start has (Jobs.started). */
  jobsStarted: Promise<void>;
  close(): Promise<void>;
}

export interface RunningService {
  url: string;
  /** With METRICS_PORT: where `GET /metrics` answers without a key. */
  metricsUrl?: string;
  deps: AppDeps;
  reloadKeys(): void;
  jobsStarted: Promise<void>;
  close(): Promise<void>;
}

export interface ServiceOptions {
  clock?: Clock;
  keys?: KeyRing;
  log?: Logger;
}

/** Composition root: config → store → actors → jobs → HTTP app. `close` stops them in reverse order. */
export async function composeService(config: Config, options: ServiceOptions = {}): Promise<ComposedService> {
  const log = options.log ?? createLogger(config.log.level);
  const clock = options.clock ?? systemClock;
  guardDataDir(config.dataDir, log);
  const masterKey = loadMasterKey(config.documents.encryptionKey, config.dataDir);
  const store = openStore(config.dataDir, config.store.sync, { masterKey, encrypt: config.documents.encryptContent });
  // Marks DATA_DIR as in use, so offline tools (`npm run compact`) refuse to run beside the service.
  const releasePid = claimPidFile(config.dataDir);
  const graph = new GraphStore(store);
  // Owners being erased or imported: invisible to every read (queries included), refusing every write.
  const holds = new OwnerHolds(store);
  const fields = new QueryService(store, new DocumentRecords(store), config.query, config.query.wake, (tenant) => holds.heldIn(tenant));
  // Actors report owners with foreign passages to the jobs, whose activities use the actors: the hook
  // reaches the jobs once they exist (an index opens on a request or an activity, both after composition).
  const started: { jobs?: Jobs; actors?: ActorRegistry } = {};
  const metrics = config.metrics && createMetrics(store, fields, started);
  const measure = metrics && ((embedder: Embedder) => measuredEmbedder(embedder, metrics));
  const backends = { ...createDocumentBackends(config, store, log, [fields.writer], measure), onForeignPassages: (scope: Scope) => started.jobs?.requestReembed(scope) };
  announceEmbedder(backends.embedding, log);
  const { keys, reloadKeys } = options.keys ? givenKeys(options.keys, log) : loadKeys(config, log);
  // Where scopes live: this node refuses (421) what the map places elsewhere, its jobs run where the scope
  // is, and a scope frozen for a move takes no write (src/placement/node-placement.ts).
  const transfers = config.placement.mapFile === undefined ? undefined : new ScopeTransfers(config.dataDir);
  const placement = new NodePlacement(config.placement.nodeId, config.placement.mapFile, (tenant) => keys.placedByPartition(tenant), log, transfers);
  placement.watch();
  // Only a node of several can have a scope frozen for a move: a lone node's writes ask nothing.
  const frozen = transfers && ((scope: Scope) => placement.frozen(scope));
  const actors = (started.actors = new ActorRegistry({ store, graph, clock, documents: backends, holds, ...(frozen ? { frozen } : {}) }, config.actors));
  const lifecycle = composeOwnerLifecycle(config, { holds, clock, log, purge: { store, docs: backends.docs, indexes: backends.indexes, actors } }, () => started.jobs);
  const { erasures, importGuard } = lifecycle;
  sweepAbandonedMedia(config, backends.docs, clock, log);
  const staging: DocumentServices = { docs: backends.docs, embedder: backends.embedder, origin: backends.indexes.origin, limits: config.documents.limits, mediaRoutes: config.media.routes };
  const reembed = reembedPort(store, backends);
  const activities = { ...activityPorts(config, actors, fields, staging), reembed, erasures };
  const reembedSettings = { ...config.reembed, embedderId: reembed.embedderId, allowed: reembed.refusal === null };
  const startedJobs = await startJobs(config, store, { log, activities, placement, backfillPageSize: config.query.backfillPageSize, reembed: reembedSettings }).catch((error: unknown) => {
    releasePid();
    throw error;
  });
  const jobs = (started.jobs = metrics ? measuredJobs(startedJobs, metrics) : startedJobs);
  // Erasures a previous process left under way go on (joining their runs once Temporal is ready); imports cut short are purged.
  lifecycle.resume();
  // Captioning runs on the jobs, and the jobs need the documents: the routes' document services are
  // completed with the captioner here, once the jobs exist, instead of patching a built object later.
  const documents: DocumentServices = { ...staging, captioner: { caption: (input) => jobs.captionMedia(input) } };
  const deps: AppDeps = {
    store, graph, actors, keys, clock, log, jobs, documents, fields, holds, erasures,
    ...(config.placement.mapFile === undefined ? {} : { placement, scopeTransfers: scopeTransferDeps(placement, store, actors, holds, fields, lifecycle, config) }),
    idempotency: new IdempotencyRecords(store),
    ownerDigest: ownerDigester(masterKey),
    cursors: new ListCursors(masterKey),
    documentFields: (doc) => fields.documentFields(doc),
    embedder: backends.embedding.status,
    jsonBodyLimit: config.http.jsonBodyLimit,
    batchBodyLimit: config.http.batchBodyLimit,
    importLineLimit: config.http.importLineLimit,
    corsOrigins: config.http.corsOrigins,
    importGuard,
    observedAtMaxSkewMs: config.memory.observedAtMaxSkewMs,
    graphCaps: config.memory.graphCaps,
    ...(metrics ? { metrics: { registry: metrics, key: config.metrics?.key } } : {}),
  };
  return {
    deps,
    app: createApp(deps),
    // SIGHUP: the keys, then the placement map (which reads the keys' tenants).
    reloadKeys: () => {
      reloadKeys();
      if (config.placement.mapFile !== undefined) placement.reloadLogged();
    },
    jobsStarted: jobs.started,
    close: async () => {
      placement.close();
      await jobs.stop();
      await actors.close();
      await backends.indexes.close();
      await backends.embedding.close();
      await fields.close();
      await store.close();
      metrics?.close();
      releasePid();
    },
  };
}

/** The composed service listening on HOST:PORT. `close` stops listening first, then the rest. */
export async function startService(config: Config, options: ServiceOptions = {}): Promise<RunningService> {
  const service = await composeService(config, options);
  const server = await listen(service.app.callback() as RequestListener, config.http.port, config.http.host);
  answerClientErrors(server, service.deps.log);
  const { port } = server.address() as AddressInfo;
  const url = httpUrl(config.http.host, port);
  service.deps.log.info({ url, dataDir: config.dataDir }, 'engram listening');
  const metricsServer = await listenForMetrics(config, service.deps).catch(async (error: unknown) => {
    await closeServer(server);
    await service.close();
    throw error;
  });
  return {
    url,
    ...(metricsServer ? { metricsUrl: metricsServer.url } : {}),
    deps: service.deps,
    reloadKeys: service.reloadKeys,
    jobsStarted: service.jobsStarted,
    close: async () => {
      await Promise.all([server, ...(metricsServer ? [metricsServer.server] : [])].map(closeServer));
      await service.close();
    },
  };
}

/** `http://host:port`, an IPv6 host in brackets. */
function httpUrl(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

async function closeServer(server: Server): Promise<void> {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeAllConnections();
}

/**
 * METRICS_PORT: `GET /metrics` without a key on a listener of its own (METRICS_HOST, 127.0.0.1 by default),
 * for a scraper on a network the API's clients do not reach. Anything else there is 404.
 */
async function listenForMetrics(config: Config, deps: AppDeps): Promise<{ server: Server; url: string } | undefined> {
  const metrics = deps.metrics?.registry;
  const port = config.metrics?.port;
  if (!metrics || port === undefined || !config.metrics) return undefined;
  const server = await listen(
    (req, res) => {
      if (req.method !== 'GET' || req.url !== '/metrics') {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('GET /metrics\n');
        return;
      }
      metrics.render().then(
        ({ text, contentType }) => res.writeHead(200, { 'content-type': contentType }).end(text),
        (err: unknown) => {
          deps.log.error({ err }, 'metrics: rendering failed');
          res.writeHead(500).end();
        },
      );
    },
    port,
    config.metrics.host,
  );
  const url = `${httpUrl(config.metrics.host, (server.address() as AddressInfo).port)}/metrics`;
  deps.log.info({ url }, 'metrics listening');
  return { server, url };
}

/**
 * The node's metrics (METRICS_KEY or METRICS_PORT set), reading the actors and jobs once they exist, and
 * timing every LMDB commit batch (src/metrics/commit-timer.ts).
 */
function createMetrics(store: Store, fields: QueryService, parts: { jobs?: Jobs; actors?: ActorRegistry }): Metrics {
  const metrics = new Metrics({
    actors: () => parts.actors ?? { size: 0, residentBytes: 0, evictions: 0 },
    lmdb: () => store.env.getStats() as { mapSize?: number; lastPageNumber?: number; pageSize?: number },
    temporal: () => parts.jobs?.readiness() ?? { ready: false },
    queryHalves: () => fields.halfOutcomes(),
  });
  timeCommits(store.env, metrics.lmdbCommits);
  return metrics;
}

/** The jobs, each awaited job's outcome counted in `engram_jobs_total`. */
function measuredJobs(jobs: Jobs, metrics: Metrics): Jobs {
  const { backfillField } = jobs;
  return {
    ...jobs,
    consolidate: (scope) => metrics.job('consolidate', jobs.consolidate(scope)),
    captionMedia: (input) => metrics.job('caption_media', jobs.captionMedia(input)),
    ...(backfillField ? { backfillField: (ref) => metrics.job('backfill_field', backfillField(ref)) } : {}),
  };
}

/**
 * Temporal-backed jobs (starting in the background), or 503 for every job when TEMPORAL_ENABLED=false;
 * a failed start (no Temporal CLI) closes the store.
 */
async function startJobs(config: Config, store: Store, deps: JobsDeps): Promise<Jobs> {
  if (!config.temporal.enabled) return disabledJobs();
  try {
    // Temporal's client, worker and bundler (~0.3 s of imports) load only on a node that runs Temporal.
    const { startTemporalJobs } = await import('./temporal/jobs.js');
    return startTemporalJobs(config.temporal, config.dataDir, deps);
  } catch (error) {
    await store.close();
    throw error;
  }
}

/** What the operator's routes of a move (src/http/routes/scope-transfer.ts) use of this node. */
function scopeTransferDeps(
  placement: NodePlacement,
  store: Store,
  actors: ActorRegistry,
  holds: OwnerHolds,
  fields: QueryService,
  lifecycle: { purgeCopy(scope: Scope): Promise<void> },
  config: Config,
): ScopeTransferDeps {
  return {
    placement,
    owners: (scope, after, limit) => scopeOwners(store, scope, after, limit),
    busyOwners: (scope) => actors.busyWhere((owner) => inScope(owner, scope)),
    heldOwners: (scope) => holds.heldIn(scope.tenant).filter((owner) => inScope({ tenant: scope.tenant, partition: owner.partition }, scope)).length,
    release: async (scope) => {
      let owners = 0;
      for (let page = scopeOwners(store, scope, null, 100); page.length > 0; page = scopeOwners(store, scope, null, 100)) {
        for (const owner of page) {
          await actors.drop(owner);
          await lifecycle.purgeCopy(owner);
          owners++;
        }
      }
      const declared = fields.list(scope.tenant).filter((f) => inScope({ tenant: scope.tenant, partition: f.partition_scope }, scope));
      for (const field of declared) await fields.remove(scope.tenant, field.partition_scope, field.name);
      return { owners, fields: declared.length };
    },
    jsonBodyLimit: config.http.jsonBodyLimit,
  };
}

/** DATA_DIR holds tenant content in clear: made owner-only (0700), and said so when it was not. */
function guardDataDir(dataDir: string, log: Logger): void {
  const state = closeDataDir(dataDir);
  if (state === 'closed') log.warn({ dataDir }, 'DATA_DIR was open to other users: closed to its owner (0700)');
  if (state === 'open') log.warn({ dataDir }, 'DATA_DIR is open to other users and not ours to close (shared or owned by another user): tenant content may be readable; use a directory of its own');
}

/** One line saying which embedder runs; a loud one when the model was asked for and is not there. */
function announceEmbedder({ status }: NodeEmbedder, log: Logger): void {
  if (status.fallback) log.warn({ embedder: status }, `EMBEDDER FALLBACK: ${status.fallback}`);
  log.info({ embedder: status.id, kind: status.kind }, `embedder: ${status.kind} (${status.id})`);
}

/**
 * What re-embedding needs of the node: its embedder, and whether it may re-embed at all. A node whose
 * model failed to load runs the hashing embedder as a fallback, and must not turn the model's vectors
 * into hash vectors: it refuses (a node configured with EMBEDDER=hash re-embeds into hash on purpose).
 */
function reembedPort(store: Store, { embedding, indexes }: ReturnType<typeof createDocumentBackends>): ReembedPort {
  const records = new ReembedRecords(store);
  const { origin } = indexes;
  const refusal = embedding.status.fallback
    ? `this node runs the hashing embedder as a fallback (${embedding.status.fallback}), so it re-embeds nothing: it would turn the vectors of the configured embedder into hash vectors`
    : null;
  return {
    embedderId: origin.id,
    refusal,
    owners: (after) => records.owners(after),
    hasForeign: async (scope) => (await records.countForeign(scope, -1, origin, 1)) > 0,
  };
}

/** What the activities use, over this node's actors, field indexes and documents. */
function activityPorts(config: Config, actors: ActorRegistry, fields: QueryService, documents: DocumentServices): Omit<ActivityPorts, 'starts' | 'reembed' | 'erasures' | 'runs' | 'placement'> {
  return {
    owners: actors,
    fields,
    media: {
      getPending: (scope, docId) => documents.docs.getPending(scope, docId),
      isDone: (scope, docId) => documents.docs.get(scope, docId) !== undefined,
      complete: async (scope, docId, text, derivedBy) => {
        await actors.actorFor(scope).documents.completePending(docId, text, derivedBy);
      },
      routes: documents.mediaRoutes,
      limits: documents.limits,
      providerKey: config.media.providerKey,
      timeoutMs: config.media.timeoutMs,
    },
  };
}

/**
 * The document store, embedder and vector index opener of one node: what every owner's
 * documents part is built from. `hooks` is where field indexes plug in; `embedding.close` stops the embedder.
 */
export function createDocumentBackends(
  config: Config,
  store: Store,
  log: Logger,
  hooks: DocumentWriteHook[],
  measure: (embedder: Embedder) => Embedder = (embedder) => embedder,
): OwnerDocumentsDeps & { embedding: NodeEmbedder } {
  const embedding = createEmbedder(config.embedder, { onModelLoaded: (ms) => log.info({ ms }, 'embedding model loaded') });
  const embedder = measure(embedding.embedder);
  const docs = new DocumentStore(store, hooks);
  // Passages stored before they carried an embedder id came from the hashing embedder or a provider.
  const ownsUnlabeled = embedding.status.kind !== 'model';
  const indexes = new VectorIndexes(docs, embedder, config.dataDir, {
    ...config.vector,
    onError: (err, what) => log.error({ err }, `vector index: ${what} failed`),
    onEvent: (event) => log.info(event, `vector index ${event.event}`),
  }, ownsUnlabeled);
  return { docs, embedder, indexes, embedding, semanticUnavailable: embedding.status.fallback };
}

/**
 * Media staged for captioning by an earlier run that died mid-way is removed once no workflow can still
 * finish it (older than a workflow's execution timeout plus one activity attempt).
 */
function sweepAbandonedMedia(config: Config, docs: DocumentStore, clock: Clock, log: Logger): void {
  const cutoff = clock.now() - config.temporal.workflows.execution_timeout_ms - 2 * config.temporal.media.caption_timeout_ms;
  docs.sweepPending(cutoff).then(
    (removed) => removed > 0 && log.info({ removed }, 'removed media abandoned while being captioned'),
    (err: unknown) => log.error({ err }, 'sweep of abandoned media failed'),
  );
}

interface LoadedKeys {
  keys: KeyLookup;
  reloadKeys(): void;
}

/** `API_KEYS_FILE`'s keys, reloadable; without the file, the dev key, which has nothing to reload. */
function loadKeys(config: Config, log: Logger): LoadedKeys {
  if (config.auth.apiKeysFile) {
    const file = new KeyFileRing(config.auth.apiKeysFile);
    log.info({ file: file.path, ...file.counts }, 'API keys loaded');
    return { keys: file, reloadKeys: () => reloadKeyFile(file, log) };
  }
  return givenKeys(devKeyRing(config, log), log);
}

/** Counts and the reason only: the file holds keys, and the reason names rules, never values. */
function reloadKeyFile(file: KeyFileRing, log: Logger): void {
  try {
    log.info({ file: file.path, ...file.reload() }, 'API keys reloaded');
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    log.warn({ file: file.path, reason }, `API keys not reloaded, the previous keys stay in use: ${reason}`);
  }
}

/** Keys that come from no file (the dev key, or a ring given by a test): a reload has nothing to read. */
function givenKeys(keys: KeyLookup, log: Logger): LoadedKeys {
  return { keys, reloadKeys: () => log.warn('API keys not reloaded: they come from no API_KEYS_FILE') };
}

function devKeyRing(config: Config, log: Logger): KeyRing {
  const dev = KeyRing.devKey(config.dataDir);
  if (dev.created) {
    // Printed once, on the run that generates it; later runs read it from DATA_DIR/dev-api-key.
    process.stdout.write(`\nEngram dev API key (saved to ${config.dataDir}/dev-api-key): ${dev.key}\n\n`);
  } else {
    log.info({ file: `${config.dataDir}/dev-api-key` }, 'using the dev API key');
  }
  return dev.ring;
}

function listen(handler: RequestListener, port: number, host: string): Promise<Server> {
  return new Promise<Server>((resolve, reject) => {
    const server = createServer(handler);
    server.keepAliveTimeout = 65_000;
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
}
