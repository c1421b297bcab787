import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveTemporalCli } from '../../src/temporal/cli.js';
import { startDevServer, type DevServer } from '../../src/temporal/dev-server.js';
import { addDocs, expectLexicalWhileForeign, MEMORIES, search, until } from '../helpers/reembed.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { quietPort } from '../../bench/lib/ports.js';

/** An OpenAI-compatible embeddings stub: the node's embedder, which is not the one that wrote the passages. */
function embeddingsProvider(): Promise<Server> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const { input } = JSON.parse(body) as { input: string[] };
      const vector = (text: string) => Array.from({ length: 8 }, (_, i) => (text.charCodeAt(i % text.length) % 7) + 1);
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ object: 'list', data: input.map((text, index) => ({ object: 'embedding', index, embedding: vector(text) })) }));
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

describe('re-embedding requested while Temporal is not ready', () => {
  const dir = mkdtempSync(join(tmpdir(), 'engram-reembed-waits-'));
  let provider: Server;
  let temporal: DevServer | null = null;
  let svc: TestService | null = null;

  beforeAll(async () => {
    provider = await embeddingsProvider();
  });
  afterAll(async () => {
    await svc?.stop();
    await temporal?.stop();
    provider?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("starts once Temporal is ready, however long that took, without the owner's being used again", async () => {
    const dataDir = join(dir, 'data');
    // Written by the hashing embedder, without Temporal.
    const writer = await startTestService({ dataDir });
    await addDocs(writer, 'waits', MEMORIES.slice(0, 4));
    await writer.stop();

    // Reopened with the provider's embedder, against a Temporal that is not there yet (checked every 100 ms).
    const port = await quietPort();
    const yaml = join(dir, 'temporal.yaml');
    writeFileSync(yaml, 'health_check_interval_ms: 100\nconnect_timeout_ms: 1000\nreembed:\n  slice_ms: 200\n');
    const url = `http://127.0.0.1:${(provider.address() as AddressInfo).port}/v1`;
    svc = await startTestService({
      dataDir,
      env: { EMBEDDINGS_URL: url, EMBEDDINGS_MODEL: 'stub-embed', EMBEDDINGS_DIMENSIONS: '8', TEMPORAL_ENABLED: 'true', TEMPORAL_ADDRESS: `127.0.0.1:${port}`, TEMPORAL_TASK_QUEUE: `waits-${randomUUID()}`, TEMPORAL_CONFIG: yaml },
    });
    // The owner's first use finds foreign passages and asks for its re-embedding, which cannot start.
    await expectLexicalWhileForeign(svc, 'waits');
    // Temporal stays away longer than a few retries of the start would last (they used to give up).
    await new Promise((resolve) => setTimeout(resolve, 4000));
    expect(svc.deps.jobs.readiness().ready).toBe(false);

    const cli = resolveTemporalCli(process.env.TEMPORAL_CLI_PATH, process.env.PATH);
    if (!cli) throw new Error('no Temporal CLI (see test/global-setup.ts)');
    temporal = await startDevServer({ cli: cli.path, port, uiPort: 0, ui: false, dbFilename: null, logLevel: 'error', namespace: 'default', startupTimeoutMs: 90_000 });

    // Searching does not ask again (the owner's indexes stay open): only the waiting request can finish it.
    const semantic = await until(() => search(svc!, 'waits', 'tea'), (res) => res.body.search_mode !== 'lexical', 90_000);
    expect(semantic.body.search_mode_reason).toBeUndefined();
  }, 180_000);
});
