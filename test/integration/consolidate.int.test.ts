import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { KEYS, startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
let temporal: Connection;
const taskQueue = `consolidate-test-${randomUUID()}`;

beforeAll(async () => {
  svc = await startTestService({
    env: { TEMPORAL_ENABLED: 'true', TEMPORAL_ADDRESS: inject('temporalAddress'), TEMPORAL_TASK_QUEUE: taskQueue },
  });
  temporal = await Connection.connect({ address: inject('temporalAddress') });
});
afterAll(async () => {
  await temporal?.close();
  await svc?.stop();
});

const q = (owner: string, extra = '') => `entity_id=${encodeURIComponent(owner)}${extra}`;

async function fact(owner: string, body: Record<string, unknown>, key?: string, extra = ''): Promise<any> {
  const res = await svc.call('POST', `/v1/memory/facts?${q(owner, extra)}`, { body: { cardinality: 'multi', ...body }, key });
  expect(res.status).toBe(201);
  return res.body;
}

const consolidate = (owner: string, extra = '', key?: string) => svc.call('POST', `/v1/memory/consolidate?${q(owner, extra)}`, { key });
const facts = async (owner: string, extra = '') => (await svc.call('GET', `/v1/memory/facts?${q(owner, extra)}`)).body.facts as any[];

describe('POST /v1/memory/consolidate', () => {
  it('retracts redundant facts, keeps the earliest, reports counts, and keeps history', async () => {
    const owner = `owner-${randomUUID()}`;
    const first = await fact(owner, { predicate: 'likes', value: 'Green Tea' });
    const dupe1 = await fact(owner, { predicate: 'likes', value: '  green   TEA ' });
    const other = await fact(owner, { predicate: 'likes', value: 'coffee' });
    const dupe2 = await fact(owner, { predicate: 'likes', value: 'GREEN TEA' });
    const number = await fact(owner, { predicate: 'age', value: 41, cardinality: 'single' });

    const res = await consolidate(owner);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ active_facts_before: 5, active_facts_after: 3, retracted: 2 });

    expect((await facts(owner)).map((f) => f.fact_id).sort()).toEqual([first.fact_id, other.fact_id, number.fact_id].sort());
    const all = await facts(owner, '&include_inactive=true');
    expect(all).toHaveLength(5);
    const retracted = all.filter((f) => f.invalid_from !== null).map((f) => [f.fact_id, f.value]);
    expect(retracted.sort()).toEqual([[dupe1.fact_id, dupe1.value], [dupe2.fact_id, dupe2.value]].sort());

    const again = await consolidate(owner);
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ active_facts_before: 3, active_facts_after: 3, retracted: 0 });
  });

  it('retracts facts about a relationship that is no longer active', async () => {
    const owner = `owner-${randomUUID()}`;
    const entity = async (name: string) =>
      (await svc.call('POST', `/v1/memory/entities?${q(owner)}`, { body: { entity_type: 'person', display_name: name } })).body.memory_entity_id;
    const [a, b, c] = [await entity('A'), await entity('B'), await entity('C')];
    const edge = async (to: string) =>
      (await svc.call('POST', `/v1/memory/relationships?${q(owner)}`, { body: { from_entity_id: a, to_entity_id: to, relationship_type: 'knows' } })).body.relationship_id;
    const [gone, live] = [await edge(b), await edge(c)];
    const aboutGone = await fact(owner, { subject_type: 'relationship', subject_id: gone, predicate: 'since', value: 2019 });
    const aboutLive = await fact(owner, { subject_type: 'relationship', subject_id: live, predicate: 'since', value: 2020 });
    expect((await svc.call('DELETE', `/v1/memory/relationships/${gone}?${q(owner)}`)).status).toBe(200);

    const res = await consolidate(owner);
    expect(res.body).toEqual({ active_facts_before: 2, active_facts_after: 1, retracted: 1 });
    expect((await facts(owner)).map((f) => f.fact_id)).toEqual([aboutLive.fact_id]);
    expect((await facts(owner, '&include_inactive=true')).find((f) => f.fact_id === aboutGone.fact_id).invalid_from).not.toBeNull();
  });

  it('touches only the scope it was called for (owner, partition, tenant)', async () => {
    const owner = `owner-${randomUUID()}`;
    for (const value of ['x', 'X']) {
      await fact(owner, { predicate: 'p', value });
      await fact(`${owner}-other`, { predicate: 'p', value });
      await fact(owner, { predicate: 'p', value }, KEYS.globex);
      await fact(owner, { predicate: 'p', value }, KEYS.platform, '&partition=p1');
      await fact(owner, { predicate: 'p', value }, KEYS.platform, '&partition=p2');
    }
    expect((await consolidate(owner, '&partition=p1', KEYS.platform)).body.retracted).toBe(1);
    expect((await consolidate(owner)).body.retracted).toBe(1);
    // Untouched scopes still have both facts.
    expect((await consolidate(`${owner}-other`)).body).toEqual({ active_facts_before: 2, active_facts_after: 1, retracted: 1 });
    expect((await consolidate(owner, '', KEYS.globex)).body).toEqual({ active_facts_before: 2, active_facts_after: 1, retracted: 1 });
    expect((await consolidate(owner, '&partition=p2', KEYS.platform)).body).toEqual({ active_facts_before: 2, active_facts_after: 1, retracted: 1 });
  });

  it('never runs two consolidations of one scope at once; concurrent callers get consistent reports', async () => {
    const owner = `owner-${randomUUID()}`;
    for (let i = 0; i < 30; i++) await fact(owner, { predicate: `p${i % 10}`, value: `v${i % 10}` });
    const results = await Promise.all([consolidate(owner), consolidate(owner), consolidate(owner)]);
    for (const r of results) {
      expect(r.status).toBe(200);
      expect(r.body.active_facts_before - r.body.retracted).toBe(r.body.active_facts_after);
      expect(r.body.active_facts_after).toBe(10);
    }
    // Whether a caller joined the running consolidation or came after it, 20 facts were retracted once.
    expect(Math.max(...results.map((r) => r.body.retracted))).toBe(20);
    expect(await facts(owner)).toHaveLength(10);
    expect(await facts(owner, '&include_inactive=true')).toHaveLength(30);
  });

  it('lets an operator find one owner runs; runs carry ids and counts, never fact values', async () => {
    const owner = `owner-${randomUUID()}`;
    const secret = `secret-value-${randomUUID()}`;
    await fact(owner, { predicate: 'note', value: secret });
    await fact(owner, { predicate: 'note', value: secret.toUpperCase() });
    expect((await consolidate(owner)).status).toBe(200);

    const client = new Client({ connection: temporal });
    const workflowId = `consolidate/acme//${encodeURIComponent(owner)}`;
    let listed: string[] = [];
    for (let i = 0; i < 50 && listed.length === 0; i++) {
      listed = [];
      for await (const run of client.workflow.list({ query: `EngramOwner = "${owner}" AND EngramTenant = "acme"` })) listed.push(run.workflowId);
      if (listed.length === 0) await new Promise((r) => setTimeout(r, 200));
    }
    expect(listed).toEqual([workflowId]);

    const handle = client.workflow.getHandle(workflowId);
    const description = await handle.describe();
    expect(description.memo).toEqual({ job: 'consolidate', tenant: 'acme', entity_id: owner });
    const text = payloadText(await handle.fetchHistory());
    expect(text).toContain(owner);
    expect(text).toContain('"retracted":1');
    expect(text.toLowerCase()).not.toContain(secret);
  });

  it('refuses bad input before any job starts', async () => {
    expect((await svc.call('POST', '/v1/memory/consolidate')).body.code).toBe('invalid_input');
    const withBody = await svc.call('POST', `/v1/memory/consolidate?${q('someone')}`, { body: { dry_run: true } });
    expect(withBody.status).toBe(400);
    expect(withBody.body.code).toBe('invalid_input');
    expect((await svc.call('POST', `/v1/memory/consolidate?${q('someone')}`, { body: {} })).status).toBe(200);
    expect((await svc.call('POST', `/v1/memory/consolidate?${q('someone')}`, { key: null })).status).toBe(401);
    expect((await svc.call('POST', `/v1/memory/consolidate?${q('someone')}`, { key: KEYS.platform })).body.code).toBe('invalid_input');
  });

  it('shows Temporal ready in GET /status', async () => {
    const status = await svc.call('GET', '/status', { key: null });
    expect(status.status).toBe(200);
    expect(status.body.temporal.ready).toBe(true);
  });
});

/** Every payload of a history, decoded: what an operator (or anyone with history access) can read. */
function payloadText(history: unknown): string {
  const out: string[] = [];
  const visit = (node: unknown): void => {
    if (node instanceof Uint8Array) out.push(Buffer.from(node).toString('utf8'));
    else if (Array.isArray(node)) node.forEach(visit);
    else if (node && typeof node === 'object') Object.values(node).forEach(visit);
  };
  visit(history);
  return out.join('\n');
}
