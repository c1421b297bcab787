import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { REEMBED_PROGRESS_QUERY, type ReembedOwnerResult, type ReembedProgress } from '../../src/jobs/contract.js';
import { requireTestModel } from '../helpers/model.js';
import { spawnService, type ServiceProcess } from '../helpers/process.js';
import { MEMORIES, MODEL_ID, PARAPHRASE, until } from '../helpers/reembed.js';

/**
 * `kill -9` of the service in the middle of an owner's re-embedding: the next process goes on where the
 * committed pages stopped, re-embeds every passage exactly once, and then finds every document.
 */
const dir = mkdtempSync(join(tmpdir(), 'engram-reembed-kill-'));
const KEY = 'sk_reembed_kill_0123456789abcdef';
const keysFile = join(dir, 'keys.json');
const temporalFile = join(dir, 'temporal.yaml');
/** Two passages each (about 1,400 characters): long enough for the job to be killed in its middle. */
const DOCS = 50;
const OWNER = 'killed';

let connection: Connection;
let client: Client;
let child: ServiceProcess | null = null;

beforeAll(async () => {
  writeFileSync(keysFile, JSON.stringify({ tenants: {}, keys: [{ key: KEY, tenant: 'kill' }] }));
  // Progress every 200 ms; a slice lost with the process is retried 2 s after its last heartbeat.
  writeFileSync(temporalFile, 'activities:\n  start_to_close_timeout_ms: 30000\n  heartbeat_timeout_ms: 2000\n  retry:\n    initial_interval_ms: 200\nreembed:\n  slice_ms: 200\n');
  connection = await Connection.connect({ address: inject('temporalAddress') });
  client = new Client({ connection });
});
afterAll(async () => {
  child?.child.kill('SIGKILL');
  await connection?.close();
  rmSync(dir, { recursive: true, force: true });
});

const call = async (url: string, method: string, path: string, body?: unknown) => {
  const res = await fetch(`${url}${path}`, { method, headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as any };
};
const text = (i: number) =>
  i === 0 ? MEMORIES[0]! : Array.from({ length: 20 }, (_, s) => `Note ${i}, line ${s}: ${MEMORIES[(i + s) % MEMORIES.length]}`).join(' ');

describe('re-embedding survives kill -9 of the service', () => {
  it('continues from the committed pages and ends with every passage re-embedded once', async () => {
    const dataDir = join(dir, 'data');
    const base = { DATA_DIR: dataDir, API_KEYS_FILE: keysFile };
    child = await spawnService(base);
    const ids: string[] = [];
    for (let i = 0; i < DOCS; i++) ids.push((await call(child.url, 'POST', `/v1/documents?entity_id=${OWNER}`, { content: text(i) })).body.doc_id);
    child.child.kill('SIGTERM');
    await child.exited;

    const taskQueue = `reembed-kill-${randomUUID()}`;
    const env = {
      ...base,
      EMBEDDER: 'model',
      EMBEDDINGS_MODEL_DIR: requireTestModel(),
      TEMPORAL_ENABLED: 'true',
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TEMPORAL_TASK_QUEUE: taskQueue,
      TEMPORAL_CONFIG: temporalFile,
      REEMBED_PAGE_SIZE: '2',
    };
    child = await spawnService(env);
    await call(child.url, 'GET', `/v1/search?entity_id=${OWNER}&q=tea`); // first use: the job starts
    const handle = client.workflow.getHandle(`reembed-owner/kill//${OWNER}/${MODEL_ID}`);
    const progress = () => handle.query<ReembedProgress>(REEMBED_PROGRESS_QUERY);
    const before = await until(progress, (p) => p.done > 0);
    expect(before.done).toBeLessThan(before.total);
    child.child.kill('SIGKILL');
    expect((await child.exited)[1]).toBe('SIGKILL');

    child = await spawnService(env);
    // Nobody uses the owner now: the workflow goes on by itself, on the new process's worker.
    const seen: number[] = [];
    const result = await until(
      async () => {
        const { status } = await handle.describe();
        if (status.name === 'RUNNING') seen.push((await progress()).done);
        return status.name === 'COMPLETED' ? ((await handle.result()) as ReembedOwnerResult) : null;
      },
      (r) => r !== null && !(r instanceof Error),
      180_000,
    );
    // Every passage once: as many rewritten as there were to rewrite (a lost page would leave foreign
    // passages and a second pass; a page done twice would count twice), and none went back to the start.
    expect(result).toEqual({ reembedded: before.total, total: before.total });
    expect(before.total).toBeGreaterThanOrEqual(DOCS * 2 - 1);
    expect(Math.min(...seen, Infinity)).toBeGreaterThanOrEqual(before.done);

    const paraphrased = await call(child.url, 'GET', `/v1/search?entity_id=${OWNER}&q=${encodeURIComponent(PARAPHRASE)}&k=3`);
    expect(paraphrased.body.results[0].doc_id).toBe(ids[0]);
    const all = await call(child.url, 'GET', `/v1/search?entity_id=${OWNER}&q=notes&k=100&mode=semantic`);
    expect(all.body.results.map((r: { doc_id: string }) => r.doc_id).sort()).toEqual([...ids].sort());
    child.child.kill('SIGTERM');
    await child.exited;
    child = null;
  }, 300_000);
});
