import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveTemporalCli } from '../../src/temporal/cli.js';
import { spawnService, temporalReady, type ServiceProcess } from '../helpers/process.js';

const root = mkdtempSync(join(tmpdir(), 'engram-background-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/**
 * A service whose embedded dev server starts only once the test opens the gate: a `temporal` that
 * waits for a file, then runs the real CLI. Temporal's start takes as long as the test wants.
 */
function gatedService(name: string): { env: Record<string, string>; dataDir: string; openGate: () => void } {
  const real = resolveTemporalCli(process.env.TEMPORAL_CLI_PATH, process.env.PATH);
  if (!real) throw new Error('no Temporal CLI (see test/global-setup.ts)');
  const dir = join(root, name);
  const gate = join(dir, 'gate-open');
  const cli = join(dir, 'temporal');
  const dataDir = join(dir, 'data');
  mkdirSync(dir);
  writeFileSync(join(dir, 'temporal.yaml'), 'dev_server:\n  port: 0\n  ui: false\n  log_level: error\n');
  writeFileSync(cli, `#!/bin/sh\nwhile [ ! -e "${gate}" ]; do sleep 0.05; done\nexec "${real.path}" "$@"\n`);
  chmodSync(cli, 0o755);
  return {
    env: { TEMPORAL_ENABLED: 'true', TEMPORAL_CLI_PATH: cli, TEMPORAL_CONFIG: join(dir, 'temporal.yaml'), TEMPORAL_TASK_QUEUE: `background-${name}`, DATA_DIR: dataDir },
    dataDir,
    openGate: () => writeFileSync(gate, ''),
  };
}

/** Pids of processes whose command line names `needle` (the dev server's database under DATA_DIR). */
function processesNaming(needle: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(needle)) pids.push(Number(entry));
    } catch {
      /* ended meanwhile */
    }
  }
  return pids;
}

describe('HTTP does not wait for Temporal', () => {
  let service: ServiceProcess | null = null;
  afterAll(async () => {
    if (service && service.child.exitCode === null) {
      service.child.kill('SIGTERM');
      await service.exited;
    }
  });

  it('serves documents while Temporal starts; durable jobs answer 503 with Retry-After until it is ready, then run', async () => {
    const { env, dataDir, openGate } = gatedService('serves');
    service = await spawnService(env);
    const url = service.url;
    const key = readFileSync(join(dataDir, 'dev-api-key'), 'utf8').trim();
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${url}${path}`, { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
      return { status: res.status, body: (await res.json()) as any, retryAfter: res.headers.get('retry-after') };
    };

    const starting = await call('GET', '/status');
    expect(starting.status).toBe(503);
    expect(starting.body).toMatchObject({ status: 'degraded', store: { ready: true }, temporal: { ready: false, restarts: 0, last_restart_at: null } });
    expect(starting.body.temporal.detail).toMatch(/starting/);

    const written = await call('POST', '/v1/documents?entity_id=u1', { content: 'The orchids need water on Thursday.', metadata: { n: 1 } });
    expect(written.status).toBe(201);
    expect((await call('GET', `/v1/documents/${written.body.doc_id}?entity_id=u1`)).body.content).toBe('The orchids need water on Thursday.');
    expect((await call('POST', '/v1/memory/facts?entity_id=u1', { predicate: 'p', value: 'x', cardinality: 'multi' })).status).toBe(201);

    const refused = await call('POST', '/v1/memory/consolidate?entity_id=u1');
    expect([refused.status, refused.body.code]).toEqual([503, 'unavailable']);
    expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
    // A field over stored documents needs its backfill job: refused as a whole, nothing declared.
    const declared = await call('PUT', '/v1/schema/fields', { fields: [{ name: 'n', type: 'int', source: { metadata: 'n' } }] });
    expect([declared.status, declared.body.code]).toEqual([503, 'unavailable']);
    expect((await call('GET', '/v1/schema/fields')).body.fields).toEqual([]);

    openGate();
    await temporalReady(url, service.exited);
    expect((await call('POST', '/v1/memory/consolidate?entity_id=u1')).body).toEqual({ active_facts_before: 1, active_facts_after: 1, retracted: 0 });
    expect((await call('PUT', '/v1/schema/fields', { fields: [{ name: 'n', type: 'int', source: { metadata: 'n' } }] })).status).toBe(200);

    service.child.kill('SIGTERM');
    expect((await service.exited)[0]).toBe(0);
    service = null;
  }, 120_000);

  it('stops cleanly on SIGTERM while the dev server is still starting, leaving no server behind', async () => {
    const { env, dataDir } = gatedService('stops');
    service = await spawnService(env);
    // The dev server's process exists (waiting at the gate) once the service has spawned it.
    let starting: number[] = [];
    for (let i = 0; i < 400 && starting.length === 0; i++) {
      starting = processesNaming(join(dataDir, 'temporal.sqlite'));
      if (starting.length === 0) await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(starting.length).toBeGreaterThan(0);

    service.child.kill('SIGTERM');
    const [code, signal] = await service.exited;
    expect([code, signal]).toEqual([0, null]);
    expect(processesNaming(join(dataDir, 'temporal.sqlite'))).toEqual([]);
    service = null;
  }, 60_000);
});
