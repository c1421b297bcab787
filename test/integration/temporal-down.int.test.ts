import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveTemporalCli } from '../../src/temporal/cli.js';
import { startDevServer, type DevServer } from '../../src/temporal/dev-server.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { quietPort } from '../../bench/lib/ports.js';

const fact = { predicate: 'likes', value: 'tea', cardinality: 'multi' };

/** Polls GET /status until Temporal shows the wanted readiness (the check is periodic, not per request). */
async function statusUntil(svc: TestService, ready: boolean): Promise<{ status: number; body: any }> {
  let res = await svc.call('GET', '/status', { key: null });
  for (let i = 0; i < 100 && res.body.temporal.ready !== ready; i++) {
    await new Promise((r) => setTimeout(r, 200));
    res = await svc.call('GET', '/status', { key: null });
  }
  return res;
}

/** The late cluster's test: checked every 200 ms, away 30 s, and expected back within 5 s of answering. */
const CHECK_MS = 200;
const OUTAGE_MS = 30_000;
const BACK_WITHIN_MS = 5_000;

function privateDevServer(port = 0): Promise<DevServer> {
  const cli = resolveTemporalCli(process.env.TEMPORAL_CLI_PATH, process.env.PATH);
  if (!cli) throw new Error('no Temporal CLI (see test/global-setup.ts)');
  return startDevServer({ cli: cli.path, port, uiPort: 0, ui: false, dbFilename: null, logLevel: 'error', namespace: 'default', startupTimeoutMs: 90_000 });
}

describe('Temporal goes away while the service runs', () => {
  let server: DevServer;
  let svc: TestService;

  beforeAll(async () => {
    // A private server: this test kills it, which must not disturb the shared one.
    server = await privateDevServer();
    svc = await startTestService({ env: { TEMPORAL_ENABLED: 'true', TEMPORAL_ADDRESS: server.address, TEMPORAL_TASK_QUEUE: `down-${randomUUID()}` } });
  });
  afterAll(async () => {
    await svc?.stop();
    await server?.stop();
  });

  it('answers 503 on consolidate and keeps serving other routes, then recovers when Temporal is back', async () => {
    expect((await svc.call('POST', '/v1/memory/consolidate?entity_id=u1')).status).toBe(200);

    process.kill(server.pid, 'SIGKILL');
    await server.stop();

    const refused = await svc.call('POST', '/v1/memory/consolidate?entity_id=u1');
    expect(refused.status).toBe(503);
    expect(refused.body.code).toBe('unavailable');
    expect((await svc.call('POST', '/v1/memory/facts?entity_id=u1', { body: fact })).status).toBe(201);
    expect((await svc.call('GET', '/v1/memory/facts?entity_id=u1')).status).toBe(200);

    const status = await statusUntil(svc, false);
    expect(status.status).toBe(503);
    expect(status.body.store.ready).toBe(true);
    expect(status.body.temporal).toMatchObject({ ready: false });
    expect(status.body.temporal.detail).toMatch(/not reachable|worker/);
    expect((await svc.call('POST', '/v1/memory/consolidate?entity_id=u1')).body.code).toBe('unavailable');

    // The same address comes back (a restarted cluster): readiness and the worker recover by themselves.
    server = await privateDevServer(Number(server.address.split(':')[1]));
    expect((await statusUntil(svc, true)).status).toBe(200);
    const again = await svc.call('POST', '/v1/memory/consolidate?entity_id=u1');
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ active_facts_before: 1, active_facts_after: 1, retracted: 0 });
  }, 120_000);
});

describe('Temporal unreachable or disabled from the start', () => {
  it('starts anyway against an unreachable cluster (503 on consolidate, 201 on facts, status not ready), and is ready within a few checks of the cluster coming up, however long it was away', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'engram-late-temporal-'));
    const yaml = join(dir, 'temporal.yaml');
    writeFileSync(yaml, `health_check_interval_ms: ${CHECK_MS}\nconnect_timeout_ms: 1000\n`);
    const port = await quietPort();
    const startedAt = Date.now();
    const svc = await startTestService({ env: { TEMPORAL_ENABLED: 'true', TEMPORAL_ADDRESS: `127.0.0.1:${port}`, TEMPORAL_TASK_QUEUE: `late-${randomUUID()}`, TEMPORAL_CONFIG: yaml } });
    let late: DevServer | null = null;
    try {
      const refused = await svc.call('POST', '/v1/memory/consolidate?entity_id=u1');
      expect(refused.status).toBe(503);
      expect(refused.body.code).toBe('unavailable');
      expect((await svc.call('POST', '/v1/memory/facts?entity_id=u1', { body: fact })).status).toBe(201);
      const status = await svc.call('GET', '/status', { key: null });
      expect(status.status).toBe(503);
      expect(status.body.temporal.ready).toBe(false);

      // Away long enough for gRPC's default reconnect backoff (1 s, growing 1.6x per failure, jittered) to
      // reach ~17 s between attempts. With that backoff, readiness came back whenever the next attempt fell
      // anywhere in that gap (14.7 s and 2.8 s after the cluster in two runs: this failed the first and not
      // the second); with the channel reconnecting at the check interval (src/temporal/client.ts), ~10 ms.
      await new Promise((r) => setTimeout(r, Math.max(0, startedAt + OUTAGE_MS - Date.now())));
      late = await privateDevServer(port);
      const upAt = Date.now();
      expect((await statusUntil(svc, true)).status).toBe(200);
      expect(Date.now() - upAt).toBeLessThan(BACK_WITHIN_MS);
      expect((await svc.call('POST', '/v1/memory/consolidate?entity_id=u1')).status).toBe(200);
    } finally {
      await svc.stop();
      await late?.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 150_000);

  it('answers 503 on consolidate when Temporal is switched off (TEMPORAL_ENABLED=false)', async () => {
    const svc = await startTestService({ env: { TEMPORAL_ENABLED: 'false' } });
    try {
      const refused = await svc.call('POST', '/v1/memory/consolidate?entity_id=u1');
      expect(refused.status).toBe(503);
      expect(refused.body).toMatchObject({ code: 'unavailable' });
      expect(refused.body.error).toMatch(/TEMPORAL_ENABLED=false/);
      expect((await svc.call('GET', '/status', { key: null })).body.temporal).toMatchObject({ ready: false, detail: expect.stringMatching(/disabled/) });
    } finally {
      await svc.stop();
    }
  });
});
