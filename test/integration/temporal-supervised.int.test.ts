import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnService, type ServiceProcess } from '../helpers/process.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The embedded default, supervised: the dev server's death is survived without restarting the service. */
describe('the embedded Temporal dev server is restarted when it dies', () => {
  const dir = mkdtempSync(join(tmpdir(), 'engram-supervised-'));
  const dataDir = join(dir, 'data');
  let service: ServiceProcess;
  let key: string;

  beforeAll(async () => {
    writeFileSync(join(dir, 'temporal.yaml'), 'dev_server:\n  port: 0\n  ui: false\n  log_level: error\n');
    service = await spawnService(
      { TEMPORAL_ENABLED: 'true', TEMPORAL_CONFIG: join(dir, 'temporal.yaml'), TEMPORAL_TASK_QUEUE: 'supervised-test', DATA_DIR: dataDir },
      { until: 'temporal' },
    );
    key = readFileSync(join(dataDir, 'dev-api-key'), 'utf8').trim();
  }, 120_000);

  afterAll(async () => {
    if (service && service.child.exitCode === null) {
      service.child.kill('SIGTERM');
      await service.exited;
    }
    rmSync(dir, { recursive: true, force: true });
  });

  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${service.url}${path}`, { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as any };
  };
  const status = async () => (await call('GET', '/status')).body;

  it('SIGKILL of the dev server: status goes not ready, then ready with restarts >= 1; jobs run on the same database', async () => {
    for (const value of ['x', 'X ']) expect((await call('POST', '/v1/memory/facts?entity_id=u1', { predicate: 'p', value, cardinality: 'multi' })).status).toBe(201);
    expect((await call('POST', '/v1/memory/consolidate?entity_id=u1')).body).toEqual({ active_facts_before: 2, active_facts_after: 1, retracted: 1 });
    const before = await status();
    expect(before.temporal).toMatchObject({ ready: true, restarts: 0, last_restart_at: null });
    const address = /^(127\.0\.0\.1:\d+) /.exec(before.temporal.detail)![1]!;
    const connection = await Connection.connect({ address });
    const workflowId = 'consolidate/dev//u1';
    const firstRun = (await new Client({ connection }).workflow.getHandle(workflowId).describe()).runId;
    await connection.close();

    const pid = Number(readFileSync(join(dataDir, 'temporal-dev.pid'), 'utf8'));
    process.kill(pid, 'SIGKILL');

    let down = await status();
    for (let i = 0; i < 200 && down.temporal.ready; i++) down = ((await sleep(25)), await status());
    expect(down.temporal.ready).toBe(false);
    expect(down.store.ready).toBe(true);
    expect((await call('GET', '/v1/memory/facts?entity_id=u1')).status).toBe(200);

    let up = down;
    for (let i = 0; i < 600 && !up.temporal.ready; i++) up = ((await sleep(100)), await status());
    expect(up.temporal.ready).toBe(true);
    expect(up.temporal.restarts).toBeGreaterThanOrEqual(1);
    expect(new Date(up.temporal.last_restart_at).toISOString()).toBe(up.temporal.last_restart_at);
    // Same frontend address: the restarted server took the first one's port.
    expect(up.temporal.detail.startsWith(`${address} `)).toBe(true);
    expect(Number(readFileSync(join(dataDir, 'temporal-dev.pid'), 'utf8'))).not.toBe(pid);
    expect(service.lines.filter((line) => line.startsWith('{')).map((line) => JSON.parse(line))).toContainEqual(expect.objectContaining({ level: 40, msg: 'Temporal dev server exited; restarting it', attempt: 1, signal: 'SIGKILL' }));

    expect((await call('POST', '/v1/memory/facts?entity_id=u1', { predicate: 'p', value: 'x  ', cardinality: 'multi' })).status).toBe(201);
    const again = await call('POST', '/v1/memory/consolidate?entity_id=u1');
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ active_facts_before: 2, active_facts_after: 1, retracted: 1 });

    // The run from before the kill is still in Temporal's database, beside the new one.
    const after = await Connection.connect({ address });
    try {
      const client = new Client({ connection: after });
      expect((await client.workflow.getHandle(workflowId, firstRun).describe()).status.name).toBe('COMPLETED');
      expect((await client.workflow.getHandle(workflowId).describe()).runId).not.toBe(firstRun);
    } finally {
      await after.close();
    }
  }, 180_000);
});
