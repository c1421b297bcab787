import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveTemporalCli } from '../../src/temporal/cli.js';
import { startDevServer, type DevServer } from '../../src/temporal/dev-server.js';
import { startTestService, type TestService } from '../helpers/service.js';

/** A provider that never answers: the captioning job stays in flight until Temporal dies under it. */
function hangingProvider(): Promise<{ url: string; received: Promise<void>; server: Server }> {
  let received!: () => void;
  const first = new Promise<void>((resolve) => (received = resolve));
  const server = createServer(() => received());
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received: first, server })),
  );
}

describe('a job in flight when Temporal dies', () => {
  const dir = mkdtempSync(join(tmpdir(), 'engram-inflight-'));
  let temporal: DevServer;
  let provider: Awaited<ReturnType<typeof hangingProvider>>;
  let svc: TestService;

  beforeAll(async () => {
    const cli = resolveTemporalCli(process.env.TEMPORAL_CLI_PATH, process.env.PATH);
    if (!cli) throw new Error('no Temporal CLI (see test/global-setup.ts)');
    // A private server: this test kills it, which must not disturb the shared one.
    temporal = await startDevServer({ cli: cli.path, port: 0, uiPort: 0, ui: false, dbFilename: null, logLevel: 'error', namespace: 'default', startupTimeoutMs: 90_000 });
    provider = await hangingProvider();
    const yaml = join(dir, 'temporal.yaml');
    writeFileSync(yaml, `connect_timeout_ms: 1000\nmedia:\n  caption_timeout_ms: 60000\n  routes:\n    - { name: hangs, kind: caption, url: "${provider.url}/v1" }\n`);
    svc = await startTestService({ env: { TEMPORAL_ENABLED: 'true', TEMPORAL_ADDRESS: temporal.address, TEMPORAL_TASK_QUEUE: `inflight-${randomUUID()}`, TEMPORAL_CONFIG: yaml, MEDIA_PROVIDER_KEY: 'sk-test' } });
  });

  afterAll(async () => {
    provider?.server.closeAllConnections();
    provider?.server.close();
    await svc?.stop();
    await temporal?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  // The timeout only guards against a hang: the SDK's own retries used to hold the answer for ~20 s,
  // where connect_timeout_ms here is 1 s.
  it('answers 503 unavailable with Retry-After instead of waiting out the client retries', async () => {
    const image = readFileSync(new URL('../fixtures/media/image.png', import.meta.url)).toString('base64');
    const pending = svc.call('POST', '/v1/memory/media?entity_id=u1', { body: { modality: 'image', content_type: 'image/png', data_base64: image } });
    await provider.received;
    process.kill(temporal.pid, 'SIGKILL');
    const res = await pending;
    expect(res.status).toBe(503);
    expect(res.body.code).toBe('unavailable');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  }, 12_000);
});
