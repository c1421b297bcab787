import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DocumentServices, OwnerDocumentsDeps } from './actors/owner-documents.js';
import { ActorRegistry } from './actors/registry.js';
import { KeyRing } from './auth/keys.js';
import { systemClock, type Clock } from './clock.js';
import type { Config } from './config.js';
import type { DocumentWriteHook } from './domain/documents.js';
import { createApp } from './http/app.js';
import type { AppDeps } from './http/context.js';
import { createLogger, type Logger } from './log.js';
import { mediaRoutesOf } from './providers/media-provider.js';
import { BlobCipher, loadMasterKey } from './store/blobs.js';
import { DocumentStore } from './store/documents.js';
import { FieldService } from './store/fields.js';
import { GraphStore } from './store/graph.js';
import { openStore, type Store } from './store/lmdb.js';
import { createEmbedder } from './vector/embedders.js';
import { VectorIndexes } from './vector/indexes.js';
import { disabledJobs, startTemporalJobs, type Jobs, type JobsDeps } from './temporal/jobs.js';

export interface RunningService {
  url: string;
  deps: AppDeps;
  close(): Promise<void>;
}

export interface ServiceOptions {
  clock?: Clock;
  keys?: KeyRing;
  log?: Logger;
}

/** Composition root: config → store → actors → jobs → HTTP. `close` stops them in reverse order. */
export async function startService(config: Config, options: ServiceOptions = {}): Promise<RunningService> {
  const log = options.log ?? createLogger(config.env.LOG_LEVEL);
  const clock = options.clock ?? systemClock;
  const store = openStore(config.dataDir, config.env.STORE_SYNC);
  const graph = new GraphStore(store);
  const fields = new FieldService(store, { maxGroups: config.env.QUERY_MAX_GROUPS, maxScanned: config.env.QUERY_MAX_SCANNED });
  const backends = createDocumentBackends(config, store, log, [fields.index]);
  const actors = new ActorRegistry({ store, graph, clock, documents: backends }, {
    maxActors: config.env.MAX_ACTORS,
    idleMs: config.env.ACTOR_IDLE_MS,
    maxResidentBytes: config.env.RESIDENT_MAX_BYTES,
  });
  const keys = options.keys ?? loadKeys(config, log);
  sweepAbandonedMedia(config, backends.docs, clock, log);
  const { env } = config;
  const limits = { documentBytes: env.DOCUMENT_MAX_BYTES, mediaBytes: env.MEDIA_MAX_BYTES, captionBytes: env.CAPTION_MAX_BYTES, transcriptBytes: env.TRANSCRIPT_MAX_BYTES };
  const media = { providerKey: env.MEDIA_PROVIDER_KEY, timeoutMs: config.temporal.media.caption_timeout_ms };
  const staging: DocumentServices = { docs: backends.docs, embedder: backends.embedder, cipher: backends.cipher, limits, mediaRoutes: mediaRoutesOf(config) };
  const jobs = await startJobs(config, { store, graph, actors, log, documents: staging, media, fields, backfillPageSize: env.BACKFILL_PAGE_SIZE });
  // Captioning runs on the jobs, and the jobs need the documents: the routes' document services are
  // completed with the captioner here, once the jobs exist, instead of patching a built object later.
  const documents: DocumentServices = { ...staging, captioner: { caption: (input) => jobs.captionMedia(input) } };
  const deps: AppDeps = {
    store, graph, actors, keys, clock, log, jobs, documents, fields,
    documentFields: (doc) => fields.documentFields(doc),
    jsonBodyLimit: config.env.JSON_BODY_LIMIT_BYTES,
  };
  const app = createApp(deps);
  const server = await listen(app.callback() as RequestListener, config.env.PORT, config.env.HOST);
  const { port } = server.address() as AddressInfo;
  const url = `http://${config.env.HOST.includes(':') ? `[${config.env.HOST}]` : config.env.HOST}:${port}`;
  log.info({ url, dataDir: config.dataDir }, 'engram listening');
  return {
    url,
    deps,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await jobs.stop();
      await actors.close();
      await store.close();
    },
  };
}

/** Temporal-backed jobs, or 503 for every job when TEMPORAL_ENABLED=false; a failed start closes the store. */
async function startJobs(config: Config, deps: JobsDeps): Promise<Jobs> {
  if (!config.env.TEMPORAL_ENABLED) return disabledJobs();
  try {
    return await startTemporalJobs(config, deps);
  } catch (error) {
    await deps.store.close();
    throw error;
  }
}

/**
 * The document store, blob cipher, embedder and vector index opener of one node: what every owner's
 * documents part is built from. `hooks` is where field indexes plug in.
 */
export function createDocumentBackends(config: Config, store: Store, log: Logger, hooks: DocumentWriteHook[]): OwnerDocumentsDeps & { cipher: BlobCipher } {
  const { env } = config;
  const embedder = createEmbedder(env);
  const docs = new DocumentStore(store, hooks);
  const cipher = new BlobCipher(loadMasterKey(env.ENCRYPTION_KEY, config.dataDir));
  const indexes = new VectorIndexes(docs, embedder, config.dataDir, {
    exactMax: env.VECTOR_EXACT_MAX,
    ef: env.VECTOR_EF,
    onError: (err, what) => log.error({ err }, `vector index: ${what} failed`),
  });
  return { docs, embedder, indexes, cipher };
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

function loadKeys(config: Config, log: Logger): KeyRing {
  if (config.env.API_KEYS_FILE) return KeyRing.fromFile(config.env.API_KEYS_FILE);
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
