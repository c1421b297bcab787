import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEY_MAX } from '../../src/store/lmdb.js';
import { KEYS, startTestService, type TestService } from '../helpers/service.js';

const dataDir = mkdtempSync(join(tmpdir(), 'engram-forget-'));
let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ dataDir });
});
afterAll(async () => {
  await svc.close();
  rmSync(dataDir, { recursive: true, force: true });
});

interface Scope {
  key: string;
  owner: string;
  partition?: string;
}
const MAIN: Scope = { key: KEYS.acme, owner: 'forget-user' };
/** Same ids everywhere: another owner of the tenant, the same owner name in another tenant and in partitions. */
const OTHERS: Scope[] = [
  { key: KEYS.acme, owner: 'forget-neighbour' },
  { key: KEYS.globex, owner: 'forget-user' },
  { key: KEYS.platform, owner: 'forget-user', partition: 'p2' },
];
const PLATFORM: Scope = { key: KEYS.platform, owner: 'forget-user', partition: 'p1' };

const q = (s: Scope, extra = '') => `entity_id=${encodeURIComponent(s.owner)}${s.partition ? `&partition=${s.partition}` : ''}${extra}`;
const call = (s: Scope, method: string, path: string, body?: unknown) => svc.call(method, `/v1/memory/${path}`, { key: s.key, body });

async function post(s: Scope, path: string, body: unknown): Promise<any> {
  const res = await call(s, 'POST', `${path}?${q(s)}`, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

/**
 * ann, bob, carl; edges ann→bob, carl→ann (retracted), ann→ann, bob→carl; facts on ann (one superseded, one
 * retracted), on each edge of ann, on bob, on bob→carl and on the owner (whose value names ann).
 */
async function seed(s: Scope): Promise<void> {
  for (const id of ['ann', 'bob', 'carl']) await post(s, 'entities', { entity_type: 'person', memory_entity_id: id, display_name: id });
  const edges = [['ann-bob', 'ann', 'bob'], ['carl-ann', 'carl', 'ann'], ['ann-ann', 'ann', 'ann'], ['bob-carl', 'bob', 'carl']];
  for (const [id, from, to] of edges) await post(s, 'relationships', { relationship_id: id, from_entity_id: from, to_entity_id: to, relationship_type: 'knows' });
  const fact = (predicate: string, value: unknown, observed: string, subject?: [string, string]) =>
    post(s, 'facts', { predicate, value, observed_at: observed, ...(subject ? { subject_type: subject[0], subject_id: subject[1] } : {}) });
  await fact('city', 'Paris', '2024-01-01T00:00:00Z', ['entity', 'ann']);
  await fact('city', 'Lyon', '2024-06-01T00:00:00Z', ['entity', 'ann']); // supersedes Paris
  const nickname = await fact('nickname', 'Annie', '2024-02-01T00:00:00Z', ['entity', 'ann']);
  await fact('since', 2019, '2024-01-02T00:00:00Z', ['relationship', 'ann-bob']);
  await fact('since', 2020, '2024-01-03T00:00:00Z', ['relationship', 'carl-ann']);
  await fact('mirror', true, '2024-01-04T00:00:00Z', ['relationship', 'ann-ann']);
  await fact('city', 'Rome', '2024-01-05T00:00:00Z', ['entity', 'bob']);
  await fact('city', 'Oslo', '2024-07-01T00:00:00Z', ['entity', 'bob']); // supersedes Rome
  await fact('weight', 3, '2024-01-06T00:00:00Z', ['relationship', 'bob-carl']);
  await fact('best_friend', 'ann', '2024-01-07T00:00:00Z');
  expect((await call(s, 'DELETE', `facts/${nickname.fact_id}?${q(s)}`)).status).toBe(200);
  expect((await call(s, 'DELETE', `relationships/carl-ann?${q(s)}`)).status).toBe(200);
}

type Reads = Record<string, { status: number; body: any }>;

/** Every read a client has of the owner's graph: lists in every state, gets, filters, as_of and history. */
async function readAll(s: Scope): Promise<Reads> {
  const reads: Record<string, string> = {
    entities: 'entities?',
    people: 'entities?entity_type=person&',
    edges: 'relationships?',
    edgesAll: 'relationships?include_inactive=true&',
    edgesFromAnn: 'relationships?include_inactive=true&from_entity_id=ann&',
    edgesToAnn: 'relationships?include_inactive=true&to_entity_id=ann&',
    edgesFromBob: 'relationships?include_inactive=true&from_entity_id=bob&',
    edgesAsOf: 'relationships?as_of=2100-01-01T00:00:00Z&',
    facts: 'facts?',
    factsAll: 'facts?include_inactive=true&',
    factsAsOfMarch: 'facts?as_of=2024-03-01T00:00:00Z&',
    factsCity: 'facts?predicate=city&include_inactive=true&',
    annFacts: 'facts?subject_type=entity&subject_id=ann&include_inactive=true&',
    annHistory: 'facts?subject_type=entity&subject_id=ann&predicate=city&history=true&',
    annEdgeFacts: 'facts?subject_type=relationship&subject_id=carl-ann&include_inactive=true&',
    bobHistory: 'facts?subject_type=entity&subject_id=bob&predicate=city&history=true&',
    bobCarlFacts: 'facts?subject_type=relationship&subject_id=bob-carl&include_inactive=true&',
    ann: 'entities/ann?',
    bob: 'entities/bob?',
    carl: 'entities/carl?',
  };
  const out: Reads = {};
  for (const [name, path] of Object.entries(reads)) {
    const res = await call(s, 'GET', `${path}${q(s, path.startsWith('entities/') ? '' : '&limit=1000')}`);
    // Error bodies differ only by their request_id.
    const { request_id: _, ...body } = res.body;
    out[name] = { status: res.status, body };
  }
  return out;
}

const ANN_EDGES = new Set(['ann-bob', 'carl-ann', 'ann-ann']);
const hangsOnAnn = (record: any): boolean =>
  record.memory_entity_id === 'ann' ||
  ANN_EDGES.has(record.relationship_id) ||
  (record.subject_type === 'entity' && record.subject_id === 'ann') ||
  (record.subject_type === 'relationship' && ANN_EDGES.has(record.subject_id));

/** What every read should answer once ann is forgotten: the same, without anything that hangs on ann. */
function withoutAnn(reads: Reads): Reads {
  const out: Reads = {};
  for (const [name, { status, body }] of Object.entries(reads)) {
    const list = ['entities', 'relationships', 'facts'].find((k) => Array.isArray(body?.[k]));
    if (list) {
      const kept = body[list].filter((r: any) => !hangsOnAnn(r));
      out[name] = { status, body: { [list]: kept, count: kept.length, next_cursor: null } };
    } else {
      out[name] = hangsOnAnn(body) ? { status: 404, body: { error: 'memory entity ann not found', code: 'not_found' } } : { status, body };
    }
  }
  return out;
}

/** Every LMDB key (records and secondary entries) under a scope, as JSON: keys only, never decoded values. */
function storedKeys(s: Scope, tenant: string): string[] {
  const { store } = svc.deps;
  const prefix = [tenant, s.partition ?? '', s.owner];
  const range = { start: prefix, end: [...prefix, KEY_MAX] };
  return [...store.records.getKeys(range), ...store.index.getKeys(range)].map((key) => JSON.stringify(key));
}

describe('DELETE /v1/memory/entities/{id}', () => {
  let before: Reads;
  const othersBefore: Reads[] = [];
  let keysBefore: string[];
  let factIdsOfAnn: string[];
  let after: Reads;
  let platformBefore: Reads;

  beforeAll(async () => {
    for (const s of [MAIN, ...OTHERS, PLATFORM]) await seed(s);
    before = await readAll(MAIN);
    for (const s of OTHERS) othersBefore.push(await readAll(s));
    platformBefore = await readAll(PLATFORM);
    keysBefore = storedKeys(MAIN, 'acme');
    factIdsOfAnn = (before.factsAll!.body.facts as any[]).filter(hangsOnAnn).map((f) => f.fact_id);
  });

  it('erases the node, every edge from or to it and every fact about them, and answers what it erased', async () => {
    expect(factIdsOfAnn).toHaveLength(6);
    const res = await call(MAIN, 'DELETE', `entities/ann?${q(MAIN)}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ erased: { entities: 1, relationships: 3, facts: 6 } });
  });

  it('leaves nothing of it in any read, and every other record of the owner as it was', async () => {
    after = await readAll(MAIN);
    expect(after).toEqual(withoutAnn(before));
    // The fixture is not vacuous: the other records are there to compare.
    expect(after.factsAll!.body.count).toBe(4);
    expect(after.edgesAll!.body.relationships.map((r: any) => r.relationship_id)).toEqual(['bob-carl']);
    expect(after.annHistory!.body.count).toBe(0);
    expect([before.ann!.status, after.ann!.status, after.bob!.status]).toEqual([200, 404, 200]);
  });

  it('removes its records and secondary index entries from LMDB, and only those', () => {
    const erasedIds = ['ann', ...ANN_EDGES, ...factIdsOfAnn];
    const mentions = (key: string) => (JSON.parse(key) as unknown[]).slice(3).some((part) => erasedIds.includes(part as string));
    const keysAfter = storedKeys(MAIN, 'acme');
    expect(keysAfter.filter(mentions)).toEqual([]);
    expect(keysAfter).toEqual(keysBefore.filter((key) => !mentions(key)));
    expect(keysBefore.filter(mentions).length).toBeGreaterThan(20);
  });

  it('leaves another owner, the same owner name in another tenant and in another partition untouched', async () => {
    for (const [i, s] of OTHERS.entries()) expect(await readAll(s)).toEqual(othersBefore[i]);
  });

  it('answers 404 to a repeat and to an unknown node, 400 to a malformed id or a missing scope', async () => {
    const again = await call(MAIN, 'DELETE', `entities/ann?${q(MAIN)}`);
    expect(again.status).toBe(404);
    expect(again.body).toMatchObject({ code: 'not_found', error: 'memory entity ann not found' });
    const unknown = await call(MAIN, 'DELETE', `entities/nobody?${q(MAIN)}`);
    expect([unknown.status, unknown.body.code]).toEqual([404, 'not_found']);
    const bad = await call(MAIN, 'DELETE', `entities/${encodeURIComponent('bad id!')}?${q(MAIN)}`);
    expect([bad.status, bad.body.code]).toEqual([400, 'invalid_input']);
    expect(bad.body.error).toMatch(/path parameter id/);
    const noOwner = await call(MAIN, 'DELETE', 'entities/bob');
    expect([noOwner.status, noOwner.body.code]).toEqual([400, 'invalid_input']);
    expect(noOwner.body.error).toMatch(/entity_id/);
    const noPartition = await call({ ...PLATFORM, partition: undefined }, 'DELETE', `entities/ann?entity_id=${PLATFORM.owner}`);
    expect([noPartition.status, noPartition.body.code]).toEqual([400, 'invalid_input']);
    expect(noPartition.body.error).toMatch(/partition/);
    expect((await call(PLATFORM, 'GET', `entities/ann?${q(PLATFORM)}`)).status).toBe(200);
    expect(await readAll(MAIN)).toEqual(after);
  });

  it('answers one of two forgets of the same node sent at once with what it erased, the other with 404', async () => {
    const race: Scope = { key: KEYS.acme, owner: 'forget-race' };
    await seed(race);
    const answers = await Promise.all([1, 2].map(() => call(race, 'DELETE', `entities/ann?${q(race)}`)));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 404]);
    expect(answers.find((a) => a.status === 200)!.body).toEqual({ erased: { entities: 1, relationships: 3, facts: 6 } });
  });

  it('forgets in a partition of a multi-tenant key, leaving its other partition', async () => {
    const res = await call(PLATFORM, 'DELETE', `entities/ann?${q(PLATFORM)}`);
    expect(res.body).toEqual({ erased: { entities: 1, relationships: 3, facts: 6 } });
    expect(await readAll(PLATFORM)).toEqual(withoutAnn(platformBefore));
    expect(await readAll(OTHERS[2]!)).toEqual(othersBefore[2]);
  });

  it('gives the same answers after a restart, with the facts reloaded from LMDB', async () => {
    await svc.close();
    svc = await startTestService({ dataDir });
    expect(await readAll(MAIN)).toEqual(after);
    for (const [i, s] of OTHERS.entries()) expect(await readAll(s)).toEqual(othersBefore[i]);
    expect((await call(MAIN, 'DELETE', `entities/ann?${q(MAIN)}`)).status).toBe(404);
  });

  it('makes a node created again with the id a new node, with nothing of the old one on it', async () => {
    await post(MAIN, 'entities', { entity_type: 'robot', memory_entity_id: 'ann' });
    const reads = await readAll(MAIN);
    expect(reads.ann!.body).toMatchObject({ memory_entity_id: 'ann', entity_type: 'robot', display_name: null });
    expect(reads.annFacts!.body.count).toBe(0);
    expect(reads.edgesToAnn!.body.count).toBe(0);
    // A fact about it now starts a new chain: nothing old to supersede.
    const fact = await post(MAIN, 'facts', { predicate: 'city', value: 'Nice', subject_type: 'entity', subject_id: 'ann' });
    expect(fact.supersedes_fact_id).toBeNull();
    const res = await call(MAIN, 'DELETE', `entities/ann?${q(MAIN)}`);
    expect(res.body).toEqual({ erased: { entities: 1, relationships: 0, facts: 1 } });
  });
});
