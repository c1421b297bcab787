import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { spawnService, type ServiceProcess } from '../helpers/process.js';
import { startTestService, type TestService } from '../helpers/service.js';

/** Field backfill as a Temporal workflow, on the real dev server of the test run. */

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(probe: () => Promise<T>, done: (v: T) => boolean, timeoutMs = 90_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (done(v)) return v;
    if (Date.now() > deadline) throw new Error(`timed out; last value ${JSON.stringify(v)}`);
    await sleep(25);
  }
}

/** Documents with `n` in metadata: every 5th holds a value that is not an int (a mismatch), every 7th none. */
function docBody(i: number) {
  const metadata: Record<string, string | number> = { color: i % 2 === 0 ? 'red' : 'blue' };
  if (i % 7 !== 0) metadata.n = i % 5 === 0 ? `x${i}` : i;
  return { content: `note ${i}`, metadata };
}
const expectedCoverage = (count: number) => {
  let coverage = 0;
  let mismatch = 0;
  for (let i = 0; i < count; i++) {
    if (i % 7 === 0) continue;
    if (i % 5 === 0) mismatch++;
    else coverage++;
  }
  return { coverage, mismatch };
};

describe('field backfill workflow (in-process worker)', () => {
  let svc: TestService;
  let temporal: Connection;
  const taskQueue = `backfill-test-${randomUUID()}`;
  const COUNT = 300;

  beforeAll(async () => {
    svc = await startTestService({ env: { TEMPORAL_ENABLED: 'true', TEMPORAL_ADDRESS: inject('temporalAddress'), TEMPORAL_TASK_QUEUE: taskQueue, BACKFILL_PAGE_SIZE: '1' } });
    temporal = await Connection.connect({ address: inject('temporalAddress') });
    for (let i = 0; i < COUNT; i += 20) {
      await Promise.all(Array.from({ length: Math.min(20, COUNT - i) }, (_, k) => svc.call('POST', `/v1/documents?entity_id=u${(i + k) % 4}`, { body: docBody(i + k) })));
    }
  });
  afterAll(async () => {
    await temporal?.close();
    await svc?.stop();
  });

  const field = async (name: string) => (await svc.call('GET', '/v1/schema/fields')).body.fields.find((f: { name: string }) => f.name === name);

  it('indexes existing documents in pages, shows progress, then answers queries exactly', async () => {
    const put = await svc.call('PUT', '/v1/schema/fields', { body: { fields: [{ name: 'n', type: 'int', source: { metadata: 'n' } }] } });
    expect(put.status).toBe(200);
    expect(put.body.fields[0].backfill).toMatch(/^(pending|running:\d+\/300|complete)$/);
    const seen = new Set<string>();
    const final = await until(() => field('n'), (f) => (seen.add(f.backfill), f.backfill === 'complete'));
    expect([...seen].some((s) => /^running:\d+\/300$/.test(s))).toBe(true);
    const { coverage, mismatch } = expectedCoverage(COUNT);
    expect([final.coverage, final.mismatch_count]).toEqual([coverage, mismatch]);
    const q = await svc.call('POST', '/v1/query', { body: { filter: { field: 'n', op: 'lt', value: 10 }, sort: [{ by: 'n' }] } });
    expect(q.body.documents.map((d: { fields: { n: number } }) => d.fields.n)).toEqual([1, 2, 3, 4, 6, 8, 9]);
    // The recorded history replays against the current workflow code (determinism).
    const history = await new Client({ connection: temporal }).workflow.getHandle('backfill-field/acme//n').fetchHistory();
    await Worker.runReplayHistory({ workflowsPath: fileURLToPath(new URL('../../workflows/index.ts', import.meta.url)) }, history, 'backfill-field/acme//n');
  });

  it('a re-declaration terminates the running backfill and the new definition wins', async () => {
    const client = new Client({ connection: temporal });
    const workflowId = `backfill-field/acme//color`;
    await svc.call('PUT', '/v1/schema/fields', { body: { fields: [{ name: 'color', type: 'string', source: { metadata: 'color' } }] } });
    const first = await client.workflow.getHandle(workflowId).describe();
    // Re-declared at once: the first run has 300 one-document pages ahead of it.
    const again = await svc.call('PUT', '/v1/schema/fields', { body: { fields: [{ name: 'color', type: 'string_list', source: { regex: 'note (\\d)' } }] } });
    expect(again.status).toBe(200);
    const done = await until(() => field('color'), (f) => f.backfill === 'complete');
    expect(done.type).toBe('string_list');
    expect(done.coverage).toBe(COUNT);
    const oldRun = client.workflow.getHandle(workflowId, first.runId);
    const old = await oldRun.describe();
    // The new run's start terminates it (TERMINATE_EXISTING), unless it ended a moment before on its own, on a
    // slice that already saw its version superseded (seen on a loaded machine): never as a complete backfill.
    if (old.status.name === 'COMPLETED') expect(await oldRun.result()).toEqual({ status: 'superseded' });
    else expect(old.status.name).toBe('TERMINATED');
    const groups = await svc.call('POST', '/v1/query', { body: { group_by: ['color'], aggregate: [{ op: 'count' }] } });
    expect(groups.body.groups.map((g: { keys: { color: string } }) => g.keys.color)).toEqual(['0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);
  });

  it('re-declaring an unchanged field starts no backfill and keeps its record; a changed one backfills again', async () => {
    const client = new Client({ connection: temporal });
    const handle = () => client.workflow.getHandle('backfill-field/acme//n').describe();
    const declared = await field('n');
    expect(declared.backfill).toBe('complete');
    const { runId } = await handle();
    const same = await svc.call('PUT', '/v1/schema/fields', { body: { fields: [{ name: 'n', type: 'int', source: { metadata: 'n' } }] } });
    expect(same.status).toBe(200);
    expect(same.body.fields.find((f: { name: string }) => f.name === 'n')).toEqual(declared);
    expect((await handle()).runId).toBe(runId);
    const q = await svc.call('POST', '/v1/query', { body: { filter: { field: 'n', op: 'lt', value: 10 }, sort: [{ by: 'n' }] } });
    expect(q.body.documents.map((d: { fields: { n: number } }) => d.fields.n)).toEqual([1, 2, 3, 4, 6, 8, 9]);

    const changed = await svc.call('PUT', '/v1/schema/fields', { body: { fields: [{ name: 'n', type: 'float', source: { metadata: 'n' } }] } });
    expect(changed.body.fields.find((f: { name: string }) => f.name === 'n').backfill).toMatch(/^(pending|running:\d+\/300)$/);
    expect((await handle()).runId).not.toBe(runId);
    const done = await until(() => field('n'), (f) => f.backfill === 'complete');
    expect([done.type, done.coverage, done.mismatch_count]).toEqual(['float', declared.coverage, declared.mismatch_count]);
  });
});

describe('field backfill survives a worker killed mid-run', () => {
  const dir = mkdtempSync(join(tmpdir(), 'engram-backfill-kill-'));
  const KEY = 'sk_backfill_0123456789abcdef';
  const keysFile = join(dir, 'keys.json');
  const temporalFile = join(dir, 'temporal.yaml');
  const COUNT = 3000;
  let env: Record<string, string>;
  let child: ServiceProcess | null = null;

  beforeAll(() => {
    writeFileSync(keysFile, JSON.stringify({ tenants: {}, keys: [{ key: KEY, tenant: 'kill' }] }));
    // A short heartbeat timeout so the retry on the second worker starts soon after the kill.
    writeFileSync(temporalFile, 'activities:\n  start_to_close_timeout_ms: 20000\n  heartbeat_timeout_ms: 500\n  retry:\n    initial_interval_ms: 200\n');
    env = {
      DATA_DIR: join(dir, 'data'),
      API_KEYS_FILE: keysFile,
      TEMPORAL_CONFIG: temporalFile,
      TEMPORAL_ENABLED: 'true',
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TEMPORAL_TASK_QUEUE: `backfill-kill-${randomUUID()}`,
      BACKFILL_PAGE_SIZE: '1',
    };
  });
  afterAll(async () => {
    child?.child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  const call = async (url: string, method: string, path: string, body?: unknown) => {
    const res = await fetch(`${url}${path}`, { method, headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as any };
  };
  const field = async (url: string) => (await call(url, 'GET', '/v1/schema/fields')).body.fields[0];
  const progress = (s: string) => Number(/^running:(\d+)\//.exec(s)?.[1] ?? (s === 'complete' ? Infinity : 0));

  it('resumes from the last heartbeat on a new worker and completes with exact counts', async () => {
    child = await spawnService(env, { until: 'temporal' });
    for (let i = 0; i < COUNT; i += 50) {
      await Promise.all(Array.from({ length: Math.min(50, COUNT - i) }, (_, k) => call(child!.url, 'POST', `/v1/documents?entity_id=u${(i + k) % 3}`, docBody(i + k))));
    }
    // The tenant is dormant until this first declaration, which indexes its 3,000 documents in pages
    // of BACKFILL_PAGE_SIZE (1 here) and answers 503 while that takes longer than QUERY_WAKE_WAIT_MS.
    const declare = () => call(child!.url, 'PUT', '/v1/schema/fields', { fields: [{ name: 'n', type: 'int', source: { metadata: 'n' } }] });
    expect((await until(declare, (r) => r.status !== 503)).status).toBe(200);
    // Killed well after the first heartbeats (throttled to 0.8 x 500 ms) have reached the server.
    const running = await until(() => field(child!.url), (f) => progress(f.backfill) >= 1);
    const since = Date.now();
    const before = await until(() => field(child!.url), (f) => Date.now() - since >= 600 || f.backfill === 'complete');
    expect([running.backfill, before.backfill]).toEqual([expect.stringMatching(/^running:\d+\/3000$/), expect.stringMatching(/^running:\d+\/3000$/)]);
    child.child.kill('SIGKILL');
    const [, signal] = await child.exited;
    expect(signal).toBe('SIGKILL');

    child = await spawnService(env);
    const observed: string[] = [];
    const done = await until(() => field(child!.url), (f) => (observed.push(f.backfill), f.backfill === 'complete'), 120_000);
    // Progress never went back to the start: the retry resumed from a heartbeat cursor (a restart
    // from scratch would have written running:1/3000 first).
    const afterRestart = observed.filter((s) => s.startsWith('running:')).map(progress);
    expect(Math.min(...afterRestart)).toBeGreaterThanOrEqual(10);
    const { coverage, mismatch } = expectedCoverage(COUNT);
    expect([done.coverage, done.mismatch_count]).toEqual([coverage, mismatch]);
    const total = await call(child.url, 'POST', '/v1/query', { filter: { field: 'n', op: 'exists', value: true } });
    expect(total.body.total).toBe(coverage);
    child.child.kill('SIGTERM');
    await child.exited;
    child = null;
  }, 240_000);
});
