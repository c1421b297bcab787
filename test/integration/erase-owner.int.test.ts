import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Key } from '../../src/store/lmdb.js';
import { FIELDS, fillOwner, ownerKeys, ownerQuery, readOwner } from '../helpers/erase.js';
import { until } from '../helpers/reembed.js';
import { KEYS, startTestService, type TestService } from '../helpers/service.js';

/** A loopback captioning provider (OpenAI-compatible chat completions), so media uploads start Temporal runs. */
function captionProvider(): Promise<Server> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ choices: [{ index: 0, message: { role: 'assistant', content: 'a sky of notes at dusk' } }] }));
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const dir = mkdtempSync(join(tmpdir(), 'engram-erase-'));
/** An owner id found nowhere else, so a search of histories and records for it means something. */
const OWNER = `zq-erased-${randomUUID().slice(0, 8)}`;
let provider: Server;
let svc: TestService;
let connection: Connection;
let client: Client;

beforeAll(async () => {
  provider = await captionProvider();
  const yaml = join(dir, 'temporal.yaml');
  const url = `http://127.0.0.1:${(provider.address() as AddressInfo).port}/v1`;
  writeFileSync(yaml, `activities:\n  heartbeat_timeout_ms: 5000\nmedia:\n  routes:\n    - { name: stub-vision, kind: caption, url: "${url}", model: vision-1 }\n`);
  svc = await startTestService({ env: { TEMPORAL_ENABLED: 'true', TEMPORAL_ADDRESS: inject('temporalAddress'), TEMPORAL_TASK_QUEUE: `erase-${randomUUID()}`, TEMPORAL_CONFIG: yaml } });
  connection = await Connection.connect({ address: inject('temporalAddress') });
  client = new Client({ connection });
});

afterAll(async () => {
  await connection?.close();
  await svc?.stop();
  provider?.close();
  rmSync(dir, { recursive: true, force: true });
});

const call: TestService['call'] = (...args) => svc.call(...args);
const receiptOf = (id: string, key: string = KEYS.acme, query = '') => call('GET', `/v1/memory/erasures/${id}${query}`, { key });
const runIds = async (query: string) => {
  const ids: string[] = [];
  for await (const run of client.workflow.list({ query })) ids.push(run.workflowId);
  return ids.sort();
};

describe('erasing an owner', () => {
  it('removes every record, index entry and Temporal run of the owner, and nothing of anyone else', async () => {
    for (const key of [KEYS.acme, KEYS.globex]) expect((await call('PUT', '/v1/schema/fields', { key, body: { fields: FIELDS } })).status).toBe(200);
    const erased = await fillOwner(call, KEYS.acme, OWNER, undefined, true);
    // Untouched: another owner of the tenant, the same owner id in another partition and in another tenant.
    const others = [
      { key: KEYS.acme, owner: 'kept-owner', partition: undefined },
      { key: KEYS.acme, owner: OWNER, partition: 'p2' },
      { key: KEYS.globex, owner: OWNER, partition: undefined },
    ];
    const kept = [];
    for (const o of others) kept.push({ ...o, ...(await fillOwner(call, o.key, o.owner, o.partition, true)) });
    const before = await Promise.all(kept.map((o) => readOwner(call, o.key, o.owner, o.docIds, o.partition)));
    const fieldsBefore = { acme: (await call('GET', '/v1/schema/fields')).body, globex: (await call('GET', '/v1/schema/fields', { key: KEYS.globex })).body };
    const ownerRuns = `EngramTenant = "acme" AND EngramOwner = "${OWNER}"`;
    const runsBefore = await runIds(ownerRuns);
    expect(runsBefore.filter((id) => id.includes('/acme//'))).toHaveLength(2); // its consolidation and its captioning
    const otherRunsBefore = [...runsBefore.filter((id) => !id.includes('/acme//')), ...(await runIds(`EngramTenant = "globex"`))];

    const answer = await call('DELETE', `/v1/memory?${ownerQuery(OWNER)}`);
    expect(answer.status).toBe(202);
    expect(answer.body).toEqual({ receipt_id: expect.stringMatching(/^era_/), state: expect.stringMatching(/^(pending|running)$/) });
    const receipt = await until(() => receiptOf(answer.body.receipt_id), (r) => r.body?.state === 'complete', 60_000);

    // Nothing of the owner through the API.
    const after = await readOwner(call, KEYS.acme, OWNER, erased.docIds);
    const empty = { count: 0 };
    const lastPage = { ...empty, next_cursor: null };
    expect(after.entities).toEqual({ status: 200, body: { entities: [], ...lastPage } });
    expect(after.relationships).toEqual({ status: 200, body: { relationships: [], ...lastPage } });
    expect(after.facts).toEqual({ status: 200, body: { facts: [], ...lastPage } });
    expect(after.history).toEqual({ status: 200, body: { facts: [], ...lastPage } });
    expect(after.documents).toEqual({ status: 200, body: { documents: [], ...empty } });
    expect((after.search as { body: { results: unknown[] } }).body.results).toEqual([]);
    expect(after.query).toEqual({ status: 200, body: { documents: [], total: 0, has_more: false } });
    expect(after.groups).toMatchObject({ status: 200, body: { groups: [], total_groups: 0, scanned: 0 } });
    expect((after.entity as { status: number }).status).toBe(404);
    for (const id of erased.docIds) {
      expect((after[`doc ${id}`] as { status: number }).status).toBe(404);
      expect((after[`download ${id}`] as { status: number }).status).toBe(404);
    }
    // Tenant-wide: no document of it answers or counts, grouped by owner.
    const byOwner = await call('POST', '/v1/query', { body: { group_by: ['entity_id', 'partition'], aggregate: [{ op: 'count' }] } });
    const groupKeys = (byOwner.body.groups as Array<{ keys: object; aggregates: object }>).map((g) => JSON.stringify(g)).sort();
    expect(groupKeys).toEqual(
      [
        { keys: { entity_id: 'kept-owner', partition: null }, aggregates: { count: 4 } },
        { keys: { entity_id: OWNER, partition: 'p2' }, aggregates: { count: 4 } },
      ].map((g) => JSON.stringify(g)).sort(),
    );
    // Nothing of it in LMDB, in the field indexes, or in Temporal's visibility (the erasure's own run names no owner).
    expect(ownerKeys(svc.deps.store, { tenant: 'acme', partition: null, entityId: OWNER })).toEqual([]);
    const runsAfter = await runIds(ownerRuns);
    expect(runsAfter.filter((id) => id.includes('/acme//'))).toEqual([]);
    expect([...runsAfter, ...(await runIds(`EngramTenant = "globex"`))].sort()).toEqual(otherRunsBefore.sort());
    const eraseRun = client.workflow.getHandle(`erase-owner/${answer.body.receipt_id}`);
    const described = await eraseRun.describe();
    expect(described.searchAttributes).not.toHaveProperty('EngramOwner');
    expect(JSON.stringify(historyToJSON(await eraseRun.fetchHistory()))).not.toContain(OWNER);
    expect(JSON.stringify(described.memo ?? {})).not.toContain(OWNER);

    // The receipt counts what went, and neither it nor its stored record names the owner.
    expect(receipt.body).toEqual({
      receipt_id: answer.body.receipt_id,
      state: 'complete',
      counts: expect.objectContaining({ documents: 5, entities: 2, relationships: 1, facts: 3, workflow_runs: 2 }),
      started_at: expect.any(String),
      finished_at: expect.any(String),
    });
    const stored = [...svc.deps.store.env.openDB<unknown, Key>({ name: 'owner_holds' }).getRange({})].map(({ value }) => value);
    expect(JSON.stringify(stored)).not.toContain(OWNER);

    // Everyone else reads exactly as before.
    const afterOthers = await Promise.all(kept.map((o) => readOwner(call, o.key, o.owner, o.docIds, o.partition)));
    expect(afterOthers).toEqual(before);
    // Coverage counts: each owner has 3 live documents with a category and 2 with an amount; two owners are left.
    const coverage = (body: { fields: Array<{ name: string; coverage: number }> }) => Object.fromEntries(body.fields.map((f) => [f.name, f.coverage]));
    expect(coverage(fieldsBefore.acme)).toEqual({ category: 9, amount: 6 });
    expect(coverage((await call('GET', '/v1/schema/fields')).body)).toEqual({ category: 6, amount: 4 });
    expect((await call('GET', '/v1/schema/fields', { key: KEYS.globex })).body).toEqual(fieldsBefore.globex);

    // Then it is a new, empty owner that takes writes.
    const again = await call('POST', `/v1/memory/facts?${ownerQuery(OWNER)}`, { body: { predicate: 'color', value: 'green' } });
    expect(again.status).toBe(201);
    expect((await call('GET', `/v1/memory/facts?${ownerQuery(OWNER)}&include_inactive=true`)).body.facts.map((f: { value: string }) => f.value)).toEqual(['green']);
  }, 120_000);

  it('answers a repeated DELETE with the same receipt while the erasure is under way', async () => {
    const owner = `twice-${randomUUID().slice(0, 8)}`;
    await fillOwner(call, KEYS.acme, owner);
    const [first, second] = await Promise.all([call('DELETE', `/v1/memory?${ownerQuery(owner)}`), call('DELETE', `/v1/memory?${ownerQuery(owner)}`)]);
    expect(first.status).toBe(202);
    expect(second.body.receipt_id).toBe(first.body.receipt_id);
    await until(() => receiptOf(first.body.receipt_id), (r) => r.body?.state === 'complete', 60_000);
    // Once complete, a new DELETE is a new erasure (of a new, empty owner).
    const third = await call('DELETE', `/v1/memory?${ownerQuery(owner)}`);
    expect(third.status).toBe(202);
    expect(third.body.receipt_id).not.toBe(first.body.receipt_id);
    await until(() => receiptOf(third.body.receipt_id), (r) => r.body?.state === 'complete', 60_000);
  }, 120_000);

  it('scopes receipts to the tenant (and to the partition of a multi-tenant key), and validates ids', async () => {
    const erased = await call('DELETE', `/v1/memory?${ownerQuery('scoped', 'p1')}`, { key: KEYS.platform });
    expect(erased.status).toBe(202);
    const id = erased.body.receipt_id as string;
    await until(() => receiptOf(id, KEYS.platform, '?partition=p1'), (r) => r.body?.state === 'complete', 60_000);
    expect((await receiptOf(id, KEYS.platform, '?partition=p2')).body.code).toBe('not_found');
    expect((await receiptOf(id, KEYS.platform)).body.code).toBe('invalid_input'); // a multi-tenant key names its partition
    expect((await receiptOf(id, KEYS.acme)).body.code).toBe('not_found');
    expect((await receiptOf(id, KEYS.acme, '?partition=p1')).body.code).toBe('not_found');
    expect((await receiptOf('era_nope')).status).toBe(404);
    expect(await receiptOf('bad id!')).toMatchObject({ status: 400, body: { code: 'invalid_input' } });
    expect(await call('DELETE', '/v1/memory')).toMatchObject({ status: 400, body: { code: 'invalid_input' } });
    expect(await call('DELETE', `/v1/memory?${ownerQuery('x')}&extra=1`)).toMatchObject({ status: 400, body: { code: 'invalid_input' } });
    expect(await call('DELETE', `/v1/memory?${ownerQuery('x')}`, { key: KEYS.platform })).toMatchObject({ status: 400, body: { code: 'invalid_input' } });
  }, 120_000);
});
