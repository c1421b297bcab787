import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';

const dir = mkdtempSync(join(tmpdir(), 'engram-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const noFile = join(dir, 'absent.yaml');

describe('loadConfig compiles the environment and temporal.yaml into one section per part', () => {
  it('fills every section from the schema defaults', () => {
    const config = loadConfig({ TEMPORAL_CONFIG: noFile });
    expect(config.dataDir).toBe(resolve('./data'));
    expect(config.http).toEqual({ port: 8080, host: '127.0.0.1', jsonBodyLimit: 2 * 1024 * 1024, batchBodyLimit: 16 * 1024 * 1024, importLineLimit: 64 * 1024 * 1024, corsOrigins: [] });
    expect(config.store).toEqual({ sync: 'full' });
    expect(config.memory).toEqual({ observedAtMaxSkewMs: 5 * 60_000, graphCaps: { nodes: 10_000, edges: 50_000, facts: 100_000 } });
    expect(config.actors).toEqual({ maxActors: 10_000, idleMs: 600_000, maxResidentBytes: 1024 ** 3 });
    expect(config.vector).toEqual({ exactMax: 1000, ef: 400, checkpoint: { labels: 1000, ms: 30_000 } });
    // The local model is the default; EMBEDDER=hash selects the hashing embedder.
    expect(config.embedder).toMatchObject({ kind: 'model', threads: 1 });
    expect(loadConfig({ TEMPORAL_CONFIG: noFile, EMBEDDER: 'hash' }).embedder).toEqual({ kind: 'hash' });
    expect(config.documents.limits).toEqual({ documentBytes: 1024 * 1024, mediaBytes: 25 * 1024 * 1024, captionBytes: 8 * 1024, transcriptBytes: 256 * 1024 });
    expect(config.query).toEqual({ maxGroups: 10_000, maxScanned: 1_000_000, threads: 2, backfillPageSize: 500, wake: { pageSize: 1_000, waitMs: 5_000 } });
    expect(config.media).toEqual({ routes: [], providerKey: undefined, timeoutMs: 60_000 });
    expect(config.temporal).toMatchObject({ enabled: true, embedded: true, address: '127.0.0.1:7233', task_queue: 'engram' });
  });

  it('turns EMBEDDINGS_URL into a provider embedder with its model and dimensions', () => {
    expect(loadConfig({ TEMPORAL_CONFIG: noFile, EMBEDDINGS_URL: 'http://127.0.0.1:9/v1', EMBEDDINGS_KEY: 'k' }).embedder).toEqual({
      kind: 'provider', url: 'http://127.0.0.1:9/v1', key: 'k', model: 'text-embedding-3-small', dimensions: 1536,
    });
    expect(loadConfig({ TEMPORAL_CONFIG: noFile, EMBEDDINGS_URL: 'http://127.0.0.1:9/v1', EMBEDDINGS_MODEL: 'm', EMBEDDINGS_DIMENSIONS: '64' }).embedder).toMatchObject({ model: 'm', dimensions: 64 });
  });

  it('selects the model with EMBEDDER=model (folder from the project root unless EMBEDDINGS_MODEL_DIR), and EMBEDDINGS_URL wins', () => {
    const root = fileURLToPath(new URL('../..', import.meta.url));
    expect(loadConfig({ TEMPORAL_CONFIG: noFile, EMBEDDER: 'model' }).embedder).toEqual({
      kind: 'model', dir: join(root, '.tools', 'models', 'all-MiniLM-L6-v2'), threads: 1,
    });
    expect(loadConfig({ TEMPORAL_CONFIG: noFile, EMBEDDER: 'model', EMBEDDINGS_MODEL_DIR: 'models/m', EMBEDDER_THREADS: '2' }).embedder).toEqual({
      kind: 'model', dir: resolve('models/m'), threads: 2,
    });
    expect(loadConfig({ TEMPORAL_CONFIG: noFile, EMBEDDER: 'model', EMBEDDINGS_URL: 'http://127.0.0.1:9/v1' }).embedder).toMatchObject({ kind: 'provider' });
    expect(() => loadConfig({ TEMPORAL_CONFIG: noFile, EMBEDDER: 'onnx' })).toThrow(/EMBEDDER/);
  });

  it("lists temporal.yaml's media routes, then MEDIA_PROVIDER_URL as the default route of both kinds", () => {
    const file = join(dir, 'temporal.yaml');
    writeFileSync(file, 'media:\n  caption_timeout_ms: 5000\n  routes:\n    - { name: safe, kind: caption, url: "http://127.0.0.1:1/v1", phi_safe: true }\n');
    const config = loadConfig({ TEMPORAL_CONFIG: file, MEDIA_PROVIDER_URL: 'http://127.0.0.1:2/v1', MEDIA_PROVIDER_KEY: 'secret' });
    expect(config.media).toEqual({
      routes: [
        { name: 'safe', kind: 'caption', url: 'http://127.0.0.1:1/v1', model: undefined, phiSafe: true },
        { name: 'default', kind: 'caption', url: 'http://127.0.0.1:2/v1', phiSafe: false },
        { name: 'default', kind: 'transcribe', url: 'http://127.0.0.1:2/v1', phiSafe: false },
      ],
      providerKey: 'secret',
      timeoutMs: 5000,
    });
  });

  it('lets TEMPORAL_ADDRESS and TEMPORAL_TASK_QUEUE override the file and switch the embedded server off', () => {
    const config = loadConfig({ TEMPORAL_CONFIG: noFile, TEMPORAL_ADDRESS: '127.0.0.9:7999', TEMPORAL_TASK_QUEUE: 'q', TEMPORAL_ENABLED: 'false' });
    expect(config.temporal).toMatchObject({ address: '127.0.0.9:7999', task_queue: 'q', embedded: false, enabled: false });
  });

  it('reads the lead observed_at may have over the clock from OBSERVED_AT_MAX_SKEW_MS (0 allowed, negative refused)', () => {
    expect(loadConfig({ TEMPORAL_CONFIG: noFile, OBSERVED_AT_MAX_SKEW_MS: '0' }).memory.observedAtMaxSkewMs).toBe(0);
    expect(loadConfig({ TEMPORAL_CONFIG: noFile, OBSERVED_AT_MAX_SKEW_MS: '60000' }).memory.observedAtMaxSkewMs).toBe(60_000);
    expect(() => loadConfig({ TEMPORAL_CONFIG: noFile, OBSERVED_AT_MAX_SKEW_MS: '-1' })).toThrow(/OBSERVED_AT_MAX_SKEW_MS/);
  });

  it('keeps no metrics unless METRICS_KEY (16+ characters, kept out of the error) or METRICS_PORT is set', () => {
    expect(loadConfig({ TEMPORAL_CONFIG: noFile }).metrics).toBeUndefined();
    expect(loadConfig({ TEMPORAL_CONFIG: noFile, METRICS_KEY: 'k'.repeat(16) }).metrics).toEqual({ key: 'k'.repeat(16), port: undefined, host: '127.0.0.1' });
    expect(loadConfig({ TEMPORAL_CONFIG: noFile, METRICS_PORT: '9464', METRICS_HOST: '0.0.0.0' }).metrics).toEqual({ key: undefined, port: 9464, host: '0.0.0.0' });
    expect(() => loadConfig({ TEMPORAL_CONFIG: noFile, METRICS_KEY: 'short-secret' })).toThrow(/METRICS_KEY/);
    expect(() => loadConfig({ TEMPORAL_CONFIG: noFile, METRICS_KEY: 'short-secret' })).not.toThrow(/short-secret/);
  });

  it('reads CORS_ORIGINS as a list of origins or `*`, and refuses what a browser never sends as an origin', () => {
    const origins = (value: string) => loadConfig({ TEMPORAL_CONFIG: noFile, CORS_ORIGINS: value }).http.corsOrigins;
    expect(origins('')).toEqual([]);
    expect(origins('*')).toEqual(['*']);
    expect(origins('https://app.example.com, http://localhost:5173')).toEqual(['https://app.example.com', 'http://localhost:5173']);
    for (const bad of ['https://app.example.com/', 'app.example.com', 'https://app.example.com/path', 'ftp://files.example.com', 'https://App.example.com', '*, https://app.example.com']) {
      expect(() => origins(bad), bad).toThrow(/invalid configuration in environment: CORS_ORIGINS/);
    }
  });

  it("leaves V8's heap growing percent to V8 (0) unless told, within 0-400", () => {
    expect(loadConfig({ TEMPORAL_CONFIG: noFile }).heapGrowingPercent).toBe(0);
    expect(loadConfig({ TEMPORAL_CONFIG: noFile, HEAP_GROWING_PERCENT: '100' }).heapGrowingPercent).toBe(100);
    for (const bad of ['-1', '401', '1.5']) {
      expect(() => loadConfig({ TEMPORAL_CONFIG: noFile, HEAP_GROWING_PERCENT: bad }), bad).toThrow(/invalid configuration in environment: HEAP_GROWING_PERCENT/);
    }
  });

  it('refuses a bad value with a message that names the variable', () => {
    expect(() => loadConfig({ TEMPORAL_CONFIG: noFile, RESIDENT_MAX_BYTES: '-1' })).toThrow(/invalid configuration in environment: RESIDENT_MAX_BYTES/);
  });
});
