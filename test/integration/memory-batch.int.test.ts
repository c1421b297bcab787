import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEYS, startTestService, type TestService } from '../helpers/service.js';

/** `POST /v1/memory/batch` (DECISIONS.md, Bulk writes): in order, all or nothing, one transaction. */
let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => {
  await svc.stop();
});

const batch = (owner: string, operations: unknown[], headers: Record<string, string> = {}) =>
  svc.call('POST', `/v1/memory/batch?entity_id=${owner}`, { body: { operations }, headers });
const get = (owner: string, path: string, query = '') => svc.call('GET', `/v1/memory/${path}?entity_id=${owner}${query}`);

describe('a batch of memory writes', () => {
  it('applies every kind of operation in order, each seeing the ones before it, and answers each record in order', async () => {
    const res = await batch('b1', [
      { op: 'upsert_entity', entity_type: 'person', memory_entity_id: 'ann', display_name: 'Ann' },
      { op: 'upsert_entity', entity_type: 'person', memory_entity_id: 'bob' },
      { op: 'upsert_relationship', from_entity_id: 'ann', to_entity_id: 'bob', relationship_type: 'knows', relationship_id: 'ab' },
      { op: 'assert_fact', subject_type: 'entity', subject_id: 'ann', predicate: 'city', value: 'Paris', observed_at: '2026-01-01T00:00:00Z' },
      { op: 'assert_fact', subject_type: 'entity', subject_id: 'ann', predicate: 'city', value: 'Berlin' },
      { op: 'assert_fact', subject_type: 'relationship', subject_id: 'ab', predicate: 'since', value: 2019 },
      { op: 'retract_relationship', relationship_id: 'ab' },
      { op: 'upsert_entity', entity_type: 'person', memory_entity_id: 'ann', aliases: ['Annie'] },
    ]);
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(8);
    const [ann, bob, edge, paris, berlin, since, retracted, annAgain] = res.body.results;
    expect([ann.memory_entity_id, bob.memory_entity_id, edge.relationship_id]).toEqual(['ann', 'bob', 'ab']);
    expect(berlin.supersedes_fact_id).toBe(paris.fact_id);
    expect(paris.value).toBe('Paris');
    expect(since).toMatchObject({ subject_type: 'relationship', subject_id: 'ab', value: 2019 });
    expect(retracted.invalid_from).not.toBeNull();
    expect(annAgain).toMatchObject({ display_name: 'Ann', aliases: ['Annie'] });

    const chain = await get('b1', 'facts', '&history=true&subject_type=entity&subject_id=ann&predicate=city');
    expect(chain.body.facts.map((f: any) => [f.value, f.invalid_from === null])).toEqual([
      ['Paris', false],
      ['Berlin', true],
    ]);
    expect(chain.body.facts[0].invalid_from).toBe(berlin.observed_at);
    expect((await get('b1', 'relationships')).body.count).toBe(0);
    expect((await get('b1', 'relationships', '&include_inactive=true')).body.relationships[0].relationship_id).toBe('ab');
  });

  it('mints ids where the caller gives none, and takes facts and edges written by earlier requests', async () => {
    const first = await batch('b2', [
      { op: 'upsert_entity', entity_type: 'thing' },
      { op: 'assert_fact', predicate: 'mood', value: 'calm' },
      { op: 'assert_fact', predicate: 'hobby', value: 'chess', cardinality: 'multi' },
    ]);
    expect(first.status).toBe(200);
    expect(first.body.results[0].memory_entity_id).toMatch(/^ent_/);
    const [, calm, chess] = first.body.results;
    const second = await batch('b2', [
      { op: 'assert_fact', predicate: 'hobby', value: 'go', cardinality: 'multi', supersedes_fact_id: chess.fact_id },
      { op: 'retract_fact', fact_id: calm.fact_id },
      { op: 'retract_fact', fact_id: calm.fact_id },
    ]);
    expect(second.status).toBe(200);
    expect(second.body.results[0].supersedes_fact_id).toBe(chess.fact_id);
    expect(second.body.results[1].invalid_from).not.toBeNull();
    expect(second.body.results[2]).toEqual(second.body.results[1]);
    expect((await get('b2', 'facts')).body.facts.map((f: any) => f.value)).toEqual(['go']);
  });
});

describe('all or nothing', () => {
  it('an operation refused leaves nothing of the batch, in LMDB or in memory, and names the operation', async () => {
    const before = await batch('b3', [{ op: 'assert_fact', predicate: 'color', value: 'red' }]);
    const red = before.body.results[0];
    const res = await batch('b3', [
      { op: 'upsert_entity', entity_type: 'person', memory_entity_id: 'cid' },
      { op: 'assert_fact', predicate: 'color', value: 'blue' },
      { op: 'upsert_relationship', from_entity_id: 'cid', to_entity_id: 'zed', relationship_type: 'knows' },
      { op: 'assert_fact', predicate: 'color', value: 'green' },
    ]);
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('not_found');
    expect(res.body.error).toBe('operations[2]: memory entity zed not found');
    expect((await get('b3', 'entities')).body.count).toBe(0);
    expect((await get('b3', 'facts', '&include_inactive=true')).body.facts.map((f: any) => f.value)).toEqual(['red']);
    // The planning view forgot the refused batch: the next assertion supersedes red, the fact that stands.
    const next = await svc.call('POST', '/v1/memory/facts?entity_id=b3', { body: { predicate: 'color', value: 'black' } });
    expect(next.body.supersedes_fact_id).toBe(red.fact_id);
    const chain = await get('b3', 'facts', '&history=true&subject_type=owner&predicate=color');
    expect(chain.body.facts.map((f: any) => f.value)).toEqual(['red', 'black']);
  });

  it.each([
    [[{ op: 'assert_fact', predicate: 'p', value: 1 }, { op: 'assert_fact', predicate: 'p', value: { a: 1 } }], 'operations[1].value'],
    [[{ op: 'forget_everything' }], 'operations[0].op'],
    [[{ op: 'retract_fact' }], 'operations[0].fact_id'],
    [[{ op: 'upsert_entity', entity_type: 'x', colour: 'red' }], 'colour'],
    [[{ op: 'assert_fact', predicate: 'p', value: 1, subject_type: 'entity' }], 'operations[0].subject_id'],
    [[], 'operations must not be empty'],
    [Array.from({ length: 1001 }, () => ({ op: 'assert_fact', predicate: 'p', value: 1 })), 'operations must have at most 1000 operations'],
  ])('bad input is 400 naming where (%#), and stores nothing', async (operations, named) => {
    const res = await batch('b4', operations);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_input');
    expect(res.body.error).toContain(named);
    expect((await get('b4', 'facts')).body.count).toBe(0);
  });

  it('a refusal decided inside the transaction names its operation: unknown fact, not active, future observed_at', async () => {
    expect((await batch('b5', [{ op: 'retract_fact', fact_id: 'fact_nope' }])).body.error).toBe('operations[0]: fact fact_nope not found');
    const stale = await batch('b5', [
      { op: 'assert_fact', predicate: 'p', value: 1 },
      { op: 'assert_fact', predicate: 'p', value: 2, supersedes_fact_id: 'fact_nope' },
    ]);
    expect(stale.status).toBe(400);
    expect(stale.body.error).toMatch(/^operations\[1\]: supersedes_fact_id fact_nope does not name an active fact/);
    const future = await batch('b5', [{ op: 'assert_fact', predicate: 'p', value: 1, observed_at: '2999-01-01T00:00:00Z' }]);
    expect(future.status).toBe(400);
    expect(future.body.error).toMatch(/^operations\[0\]: observed_at must be at most/);
    expect((await get('b5', 'facts', '&include_inactive=true')).body.count).toBe(0);
  });
});

describe('scope and retries', () => {
  it("an owner's batch cannot reach another owner's or tenant's records (404)", async () => {
    await batch('b6', [{ op: 'upsert_entity', entity_type: 'person', memory_entity_id: 'ann' }]);
    const other = await batch('b6-other', [{ op: 'assert_fact', subject_type: 'entity', subject_id: 'ann', predicate: 'p', value: 1 }]);
    expect(other.status).toBe(404);
    const tenant = await svc.call('POST', '/v1/memory/batch?entity_id=b6', {
      key: KEYS.globex,
      body: { operations: [{ op: 'upsert_relationship', from_entity_id: 'ann', to_entity_id: 'ann', relationship_type: 'self' }] },
    });
    expect(tenant.status).toBe(404);
  });

  it('with an Idempotency-Key, a repeat is the first answer replayed, applied once', async () => {
    const operations = [{ op: 'assert_fact', predicate: 'visits', value: 1, cardinality: 'multi' }];
    const first = await batch('b7', operations, { 'idempotency-key': 'batch-key-1' });
    const again = await batch('b7', operations, { 'idempotency-key': 'batch-key-1' });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect((await get('b7', 'facts')).body.count).toBe(1);
  });
});

describe('a refused batch of a new owner, across a restart', () => {
  it("leaves the owner's later writes readable after a restart (its data key is never allocated in a transaction that is undone)", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'engram-batch-restart-'));
    try {
      let node = await startTestService({ dataDir });
      const refused = await node.call('POST', '/v1/memory/batch?entity_id=fresh-owner', {
        body: { operations: [{ op: 'upsert_entity', entity_type: 'person', memory_entity_id: 'ann' }, { op: 'retract_fact', fact_id: 'fact_none' }] },
      });
      expect(refused.status).toBe(404);
      expect((await node.call('POST', '/v1/memory/entities?entity_id=fresh-owner', { body: { entity_type: 'person', memory_entity_id: 'bob' } })).status).toBe(201);
      await node.call('POST', '/v1/memory/entities?entity_id=other-owner', { body: { entity_type: 'person', memory_entity_id: 'cy' } });
      await node.close();
      node = await startTestService({ dataDir });
      expect((await node.call('GET', '/v1/memory/entities/bob?entity_id=fresh-owner')).status).toBe(200);
      expect((await node.call('GET', '/v1/memory/entities/cy?entity_id=other-owner')).status).toBe(200);
      expect((await node.call('GET', '/v1/memory/entities?entity_id=fresh-owner')).body.entities.map((e: any) => e.memory_entity_id)).toEqual(['bob']);
      await node.close();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
