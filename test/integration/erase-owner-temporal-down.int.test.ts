import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveTemporalCli } from '../../src/temporal/cli.js';
import { startDevServer, type DevServer } from '../../src/temporal/dev-server.js';
import { fillOwner, ownerKeys, ownerQuery, readOwner } from '../helpers/erase.js';
import { memoryLog } from '../helpers/memory-log.js';
import { until } from '../helpers/reembed.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { KEYS } from '../helpers/service.js';
import { quietPort } from '../../bench/lib/ports.js';

describe('erasing an owner while Temporal is down', () => {
  const dir = mkdtempSync(join(tmpdir(), 'engram-erase-down-'));
  let temporal: DevServer | null = null;
  let svc: TestService | null = null;

  afterAll(async () => {
    await svc?.stop();
    await temporal?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers 202 pending, hides the owner and refuses its writes at once, and completes once Temporal is up', async () => {
    const port = await quietPort();
    const yaml = join(dir, 'temporal.yaml');
    writeFileSync(yaml, 'health_check_interval_ms: 100\nconnect_timeout_ms: 1000\n');
    // The service's log, kept to explain a receipt that never completes (this test failed that way once in CI).
    const { log, entries } = memoryLog();
    svc = await startTestService({ env: { TEMPORAL_ENABLED: 'true', TEMPORAL_ADDRESS: `127.0.0.1:${port}`, TEMPORAL_TASK_QUEUE: `erase-down-${randomUUID()}`, TEMPORAL_CONFIG: yaml }, log });
    const call = svc.call;
    const owner = 'while-down';
    const { docIds } = await fillOwner(call, KEYS.acme, owner);
    const kept = await fillOwner(call, KEYS.acme, 'neighbour');
    const neighbour = await readOwner(call, KEYS.acme, 'neighbour', kept.docIds);
    expect(svc.deps.jobs.readiness().ready).toBe(false);

    const answer = await call('DELETE', `/v1/memory?${ownerQuery(owner)}`);
    expect(answer).toMatchObject({ status: 202, body: { state: 'pending' } });

    // Invisible at once: every read is empty or 404, the tenant's queries leave it out, and writes are 409.
    const hidden = await readOwner(call, KEYS.acme, owner, docIds);
    expect(hidden.entities).toMatchObject({ status: 200, body: { entities: [] } });
    expect(hidden.facts).toMatchObject({ status: 200, body: { facts: [] } });
    expect(hidden.documents).toMatchObject({ status: 200, body: { documents: [] } });
    expect(hidden.search).toMatchObject({ status: 200, body: { results: [] } });
    expect(hidden.query).toMatchObject({ status: 200, body: { documents: [], total: 0 } });
    for (const id of docIds) expect(hidden[`doc ${id}`]).toMatchObject({ status: 404 });
    const all = await call('POST', '/v1/query', { body: { group_by: ['entity_id'], aggregate: [{ op: 'count' }] } });
    expect(all.body.groups).toEqual([{ keys: { entity_id: 'neighbour' }, aggregates: { count: 3 } }]);
    const q = ownerQuery(owner);
    const writes = [
      await call('POST', `/v1/memory/entities?${q}`, { body: { entity_type: 'person' } }),
      await call('POST', `/v1/memory/relationships?${q}`, { body: { from_entity_id: 'ann', to_entity_id: 'acme-co', relationship_type: 'knows' } }),
      await call('POST', `/v1/memory/facts?${q}`, { body: { predicate: 'color', value: 'green' } }),
      await call('DELETE', `/v1/memory/facts/fact_x?${q}`),
      await call('DELETE', `/v1/memory/relationships/ann-acme?${q}`),
      await call('POST', `/v1/documents?${q}`, { body: { content: 'new' } }),
      await call('POST', `/v1/documents/batch?${q}`, { body: { documents: [{ content: 'new' }] } }),
      await call('DELETE', `/v1/documents/${docIds[0]}?${q}&hard=true`),
      await call('POST', `/v1/documents/${docIds[2]}/restore?${q}`),
      await call('POST', `/v1/memory/media?${q}`, { body: { modality: 'image', content_type: 'image/png', data_base64: 'iVBORw0KGgo=', caption: 'x' } }),
      await call('POST', `/v1/memory/consolidate?${q}`),
      await call('DELETE', `/v1/memory/entities/ann?${q}`),
    ];
    for (const write of writes) expect(write).toMatchObject({ status: 409, body: { code: 'conflict' } });
    // Nothing was deleted yet: the records wait for the workflow.
    const scope = { tenant: 'acme', partition: null, entityId: owner };
    expect(ownerKeys(svc.deps.store, scope).length).toBeGreaterThan(10);

    const cli = resolveTemporalCli(process.env.TEMPORAL_CLI_PATH, process.env.PATH);
    if (!cli) throw new Error('no Temporal CLI (see test/global-setup.ts)');
    const serverStartedAt = Date.now();
    temporal = await startDevServer({ cli: cli.path, port, uiPort: 0, ui: false, dbFilename: null, logLevel: 'error', namespace: 'default', startupTimeoutMs: 90_000 });

    const done = await until(() => call('GET', `/v1/memory/erasures/${answer.body.receipt_id}`), (r) => r.body?.state === 'complete', 90_000).catch((error: unknown) => {
      // What the service said since the server was started, repeats collapsed (the workers retry every 100 ms).
      const said = entries()
        .filter((e) => e.msg !== 'request' && Number(e.time) >= serverStartedAt)
        .map((e) => `${String(e.level)} ${String(e.msg)}${e.err ? `: ${String((e.err as { message?: unknown }).message).slice(0, 200)}` : ''}`)
        .filter((line, i, all) => line !== all[i - 1]);
      throw new Error(`${String(error)}; Temporal readiness ${JSON.stringify(svc?.deps.jobs.readiness())}; the service's log since the server was started:\n${said.slice(-60).join('\n')}`);
    });
    expect(done.body.counts).toMatchObject({ documents: 4, entities: 2, relationships: 1, facts: 3 });
    expect(ownerKeys(svc.deps.store, scope)).toEqual([]);
    expect(await readOwner(call, KEYS.acme, 'neighbour', kept.docIds)).toEqual(neighbour);
    // A new, empty owner that takes writes.
    expect((await call('POST', `/v1/memory/facts?${q}`, { body: { predicate: 'color', value: 'green' } })).status).toBe(201);
    expect((await call('GET', `/v1/memory/entities?${q}`)).body.entities).toEqual([]);
  }, 180_000);
});
