import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import type { DevServer, DevServerExit } from '../../src/temporal/dev-server.js';
import { DEFAULT_RESTART_POLICY, DevServerSupervisor, restartDelay, type DevServerPorts } from '../../src/temporal/dev-server-supervisor.js';

describe('restartDelay', () => {
  it('doubles from 0.5 s up to 30 s', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 20].map((attempt) => restartDelay(attempt, DEFAULT_RESTART_POLICY))).toEqual([500, 1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000]);
  });
});

/** A server process the test ends at will. */
function fakeServer(port: number, pid: number): DevServer & { die(exit: DevServerExit): void; stopped: boolean } {
  let die!: (exit: DevServerExit) => void;
  const exited = new Promise<DevServerExit>((resolve) => (die = resolve));
  const server = {
    address: `127.0.0.1:${port}`,
    uiUrl: null,
    pid,
    exited,
    stopped: false,
    die,
    stop: async () => {
      server.stopped = true;
      die({ code: 0, signal: null });
    },
  };
  return server;
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));
async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 400 && !condition(); i++) await tick();
  expect(condition()).toBe(true);
}

describe('DevServerSupervisor', () => {
  const policy = { initialDelayMs: 1, maxDelayMs: 4, stableMs: 60_000 };

  it('starts the server again on the same ports when it dies, and counts the restarts', async () => {
    const calls: Array<DevServerPorts | null> = [];
    const servers: Array<ReturnType<typeof fakeServer>> = [];
    const supervisor = new DevServerSupervisor({
      log: createLogger('silent'),
      policy,
      start: async (ports) => {
        calls.push(ports);
        const server = fakeServer(ports?.port ?? 41_000, 100 + servers.length);
        servers.push(server);
        return server;
      },
    });
    expect((await supervisor.start()).address).toBe('127.0.0.1:41000');
    expect(supervisor.status()).toMatchObject({ state: 'running', restarts: 0, lastRestartAt: null });

    servers[0]!.die({ code: null, signal: 'SIGKILL' });
    await until(() => servers.length === 2 && supervisor.status().state === 'running');
    expect(supervisor.status().restarts).toBe(1);
    expect(supervisor.status().lastRestartAt).toBeInstanceOf(Date);
    expect(calls).toEqual([null, { port: 41_000, uiPort: 0 }]);

    await supervisor.stop();
    expect(servers[1]!.stopped).toBe(true);
    expect(supervisor.status().state).toBe('stopped');
  });

  it('keeps trying a server that fails to start, saying why, until one answers', async () => {
    let attempts = 0;
    const supervisor = new DevServerSupervisor({
      log: createLogger('silent'),
      policy,
      start: async () => {
        if (++attempts < 4) throw new Error('listen: address already in use');
        return fakeServer(41_001, 7);
      },
    });
    const first = supervisor.start();
    expect(supervisor.status()).toMatchObject({ state: 'starting' });
    await first;
    expect(attempts).toBe(4);
    expect(supervisor.status()).toMatchObject({ state: 'running', restarts: 0 });
    await supervisor.stop();
  });

  it('stop during a start aborts it and rejects the first start', async () => {
    let aborted = false;
    const supervisor = new DevServerSupervisor({
      log: createLogger('silent'),
      policy,
      start: (_ports, signal) =>
        new Promise((_resolve, reject) => signal.addEventListener('abort', () => ((aborted = true), reject(signal.reason)))),
    });
    const first = supervisor.start();
    await supervisor.stop();
    expect(aborted).toBe(true);
    await expect(first).rejects.toThrow(/shutting down/);
  });
});
