import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => {
  await svc.stop();
});

const q = (owner: string, extra = '') => `entity_id=${encodeURIComponent(owner)}${extra}`;

describe('entities', () => {
  it('mints, fetches, lists by type in creation order, and updates by id', async () => {
    const a = await svc.call('POST', `/v1/memory/entities?${q('ent-owner')}`, { body: { entity_type: 'person', display_name: 'Ann', aliases: ['Annie'], attributes: { age: 41 } } });
    expect(a.status).toBe(201);
    expect(a.body.memory_entity_id).toMatch(/^ent_[0-9A-Z]{26}$/);
    expect(a.body).toMatchObject({ entity_id: 'ent-owner', partition: null, entity_type: 'person', aliases: ['Annie'], attributes: { age: 41 } });
    const b = await svc.call('POST', `/v1/memory/entities?${q('ent-owner')}`, { body: { entity_type: 'project' } });
    expect(b.body.aliases).toEqual([]);
    expect(b.body.attributes).toEqual({});

    const got = await svc.call('GET', `/v1/memory/entities/${a.body.memory_entity_id}?${q('ent-owner')}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(a.body);

    const people = await svc.call('GET', `/v1/memory/entities?${q('ent-owner', '&entity_type=person')}`);
    expect(people.body.count).toBe(1);
    const all = await svc.call('GET', `/v1/memory/entities?${q('ent-owner')}`);
    expect(all.body.entities.map((e: any) => e.memory_entity_id)).toEqual([a.body.memory_entity_id, b.body.memory_entity_id]);
    const limited = await svc.call('GET', `/v1/memory/entities?${q('ent-owner', '&limit=1')}`);
    expect(limited.body.count).toBe(1);

    const updated = await svc.call('POST', `/v1/memory/entities?${q('ent-owner')}`, {
      body: { entity_type: 'person', memory_entity_id: a.body.memory_entity_id, display_name: 'Ann B.' },
    });
    expect(updated.status).toBe(201);
    expect(updated.body).toMatchObject({ memory_entity_id: a.body.memory_entity_id, display_name: 'Ann B.', aliases: ['Annie'], created_at: a.body.created_at });
  });

  it('treats a caller id as an idempotency key', async () => {
    const first = await svc.call('POST', `/v1/memory/entities?${q('idem')}`, { body: { entity_type: 'person', memory_entity_id: 'person-42' } });
    const again = await svc.call('POST', `/v1/memory/entities?${q('idem')}`, { body: { entity_type: 'person', memory_entity_id: 'person-42' } });
    expect(again.body.memory_entity_id).toBe('person-42');
    expect(again.body.created_at).toBe(first.body.created_at);
    const list = await svc.call('GET', `/v1/memory/entities?${q('idem')}`);
    expect(list.body.count).toBe(1);
  });

  it('answers 404 for an unknown node and 400 for a malformed id', async () => {
    expect((await svc.call('GET', `/v1/memory/entities/nope?${q('ent-owner')}`)).body.code).toBe('not_found');
    const bad = await svc.call('GET', `/v1/memory/entities/${encodeURIComponent('bad id!')}?${q('ent-owner')}`);
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('invalid_input');
  });
});

describe('relationships', () => {
  it('creates edges between existing nodes, filters, updates in place and retracts with history', async () => {
    const owner = 'rel-owner';
    const ann = (await svc.call('POST', `/v1/memory/entities?${q(owner)}`, { body: { entity_type: 'person', memory_entity_id: 'ann' } })).body;
    await svc.call('POST', `/v1/memory/entities?${q(owner)}`, { body: { entity_type: 'org', memory_entity_id: 'acme' } });
    await svc.call('POST', `/v1/memory/entities?${q(owner)}`, { body: { entity_type: 'org', memory_entity_id: 'initech' } });
    const works = await svc.call('POST', `/v1/memory/relationships?${q(owner)}`, {
      body: { from_entity_id: ann.memory_entity_id, to_entity_id: 'acme', relationship_type: 'works_at', valid_from: '2020-01-01T00:00:00+01:00' },
    });
    expect(works.status).toBe(201);
    expect(works.body).toMatchObject({ relationship_id: expect.stringMatching(/^rel_/), attributes: {}, valid_from: '2019-12-31T23:00:00.000Z', invalid_from: null });
    const owns = await svc.call('POST', `/v1/memory/relationships?${q(owner)}`, {
      body: { from_entity_id: 'ann', to_entity_id: 'initech', relationship_type: 'owns', relationship_id: 'ann-owns-initech' },
    });
    expect(owns.body.relationship_id).toBe('ann-owns-initech');

    const fromAnn = await svc.call('GET', `/v1/memory/relationships?${q(owner, '&from_entity_id=ann')}`);
    expect(fromAnn.body.count).toBe(2);
    const toAcme = await svc.call('GET', `/v1/memory/relationships?${q(owner, '&to_entity_id=acme')}`);
    expect(toAcme.body.relationships.map((r: any) => r.relationship_type)).toEqual(['works_at']);
    const ownsOnly = await svc.call('GET', `/v1/memory/relationships?${q(owner, '&relationship_type=owns')}`);
    expect(ownsOnly.body.count).toBe(1);

    const updated = await svc.call('POST', `/v1/memory/relationships?${q(owner)}`, {
      body: { from_entity_id: 'ann', to_entity_id: 'initech', relationship_type: 'owns', relationship_id: 'ann-owns-initech', attributes: { share: 0.5 } },
    });
    expect(updated.body).toMatchObject({ attributes: { share: 0.5 }, observed_at: owns.body.observed_at });
    const changedType = await svc.call('POST', `/v1/memory/relationships?${q(owner)}`, {
      body: { from_entity_id: 'ann', to_entity_id: 'initech', relationship_type: 'likes', relationship_id: 'ann-owns-initech' },
    });
    expect(changedType.status).toBe(400);
    expect(changedType.body.error).toMatch(/relationship_type/);

    const retracted = await svc.call('DELETE', `/v1/memory/relationships/ann-owns-initech?${q(owner)}`);
    expect(retracted.status).toBe(200);
    expect(retracted.body.invalid_from).not.toBeNull();
    const active = await svc.call('GET', `/v1/memory/relationships?${q(owner)}`);
    expect(active.body.relationships.map((r: any) => r.relationship_id)).toEqual([works.body.relationship_id]);
    const all = await svc.call('GET', `/v1/memory/relationships?${q(owner, '&include_inactive=true')}`);
    expect(all.body.count).toBe(2);
    const before = await svc.call('GET', `/v1/memory/relationships?${q(owner, `&as_of=${encodeURIComponent(retracted.body.observed_at)}`)}`);
    expect(before.body.count).toBe(2);
  });

  it('answers 404 when an endpoint does not exist in the scope', async () => {
    await svc.call('POST', `/v1/memory/entities?${q('rel-404')}`, { body: { entity_type: 'person', memory_entity_id: 'ann' } });
    const res = await svc.call('POST', `/v1/memory/relationships?${q('rel-404')}`, { body: { from_entity_id: 'ann', to_entity_id: 'ghost', relationship_type: 'knows' } });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: 'not_found', request_id: expect.any(String) });
    expect((await svc.call('DELETE', `/v1/memory/relationships/ghost?${q('rel-404')}`)).status).toBe(404);
  });
});

describe('facts', () => {
  it('supersedes single facts automatically and keeps history', async () => {
    const owner = 'fact-owner';
    const red = await svc.call('POST', `/v1/memory/facts?${q(owner)}`, { body: { predicate: 'favorite_color', value: 'red', subject_type: 'owner' } });
    expect(red.status).toBe(201);
    expect(red.body).toMatchObject({ subject_type: 'owner', subject_id: null, cardinality: 'single', supersedes_fact_id: null, invalid_from: null });
    const blue = await svc.call('POST', `/v1/memory/facts?${q(owner)}`, { body: { predicate: 'favorite_color', value: 'blue' } });
    expect(blue.body.supersedes_fact_id).toBe(red.body.fact_id);

    const active = await svc.call('GET', `/v1/memory/facts?${q(owner)}`);
    expect(active.body.facts.map((f: any) => f.value)).toEqual(['blue']);
    const history = await svc.call('GET', `/v1/memory/facts?${q(owner, '&history=true&subject_type=owner&predicate=favorite_color')}`);
    expect(history.body.facts.map((f: any) => [f.value, f.invalid_from])).toEqual([
      ['red', blue.body.observed_at],
      ['blue', null],
    ]);
    const asOfRed = await svc.call('GET', `/v1/memory/facts?${q(owner, `&as_of=${encodeURIComponent(red.body.observed_at)}`)}`);
    expect(asOfRed.body.facts.map((f: any) => f.value)).toEqual(['red']);
  });

  it('keeps multi values side by side and supersedes one explicitly', async () => {
    const owner = 'multi-owner';
    const tea = await svc.call('POST', `/v1/memory/facts?${q(owner)}`, { body: { predicate: 'likes', value: 'tea', subject_type: 'owner', cardinality: 'multi' } });
    await svc.call('POST', `/v1/memory/facts?${q(owner)}`, { body: { predicate: 'likes', value: 'jazz', subject_type: 'owner', cardinality: 'multi' } });
    expect((await svc.call('GET', `/v1/memory/facts?${q(owner, '&predicate=likes')}`)).body.count).toBe(2);
    const coffee = await svc.call('POST', `/v1/memory/facts?${q(owner)}`, {
      body: { predicate: 'likes', value: 'coffee', subject_type: 'owner', cardinality: 'multi', supersedes_fact_id: tea.body.fact_id },
    });
    expect(coffee.body.supersedes_fact_id).toBe(tea.body.fact_id);
    const values = (await svc.call('GET', `/v1/memory/facts?${q(owner, '&predicate=likes')}`)).body.facts.map((f: any) => f.value);
    expect(values.sort()).toEqual(['coffee', 'jazz']);
    const again = await svc.call('POST', `/v1/memory/facts?${q(owner)}`, {
      body: { predicate: 'likes', value: 'x', subject_type: 'owner', supersedes_fact_id: tea.body.fact_id },
    });
    expect(again.status).toBe(400);
  });

  it('stores an out-of-order observation as history and answers as_of by transaction time', async () => {
    const owner = 'ooo-owner';
    const now = await svc.call('POST', `/v1/memory/facts?${q(owner)}`, { body: { predicate: 'city', value: 'Paris', subject_type: 'owner', observed_at: '2026-06-01T00:00:00Z' } });
    const late = await svc.call('POST', `/v1/memory/facts?${q(owner)}`, { body: { predicate: 'city', value: 'Lyon', subject_type: 'owner', observed_at: '2026-01-01T00:00:00Z' } });
    expect(late.body.invalid_from).toBe(now.body.observed_at);
    expect((await svc.call('GET', `/v1/memory/facts?${q(owner)}`)).body.facts.map((f: any) => f.value)).toEqual(['Paris']);
    const inMarch = await svc.call('GET', `/v1/memory/facts?${q(owner, '&as_of=2026-03-01T00:00:00Z')}`);
    expect(inMarch.body.facts.map((f: any) => f.value)).toEqual(['Lyon']);
    const justBefore = await svc.call('GET', `/v1/memory/facts?${q(owner, '&as_of=2026-05-31T23:59:59.999Z')}`);
    expect(justBefore.body.facts.map((f: any) => f.value)).toEqual(['Lyon']);
    const atBoundary = await svc.call('GET', `/v1/memory/facts?${q(owner, '&as_of=2026-06-01T02:00:00%2B02:00')}`);
    expect(atBoundary.body.facts.map((f: any) => f.value)).toEqual(['Paris']);
  });

  it('slots an observation between two known ones into the timeline', async () => {
    const owner = 'between-owner';
    const at = (value: string, day: string) =>
      svc.call('POST', `/v1/memory/facts?${q(owner)}`, { body: { predicate: 'job', value, observed_at: `2026-01-${day}T00:00:00Z` } });
    await at('intern', '01');
    await at('lead', '20');
    const middle = await at('engineer', '10');
    expect(middle.body.invalid_from).toBe('2026-01-20T00:00:00.000Z');
    const valueAt = async (day: string) =>
      (await svc.call('GET', `/v1/memory/facts?${q(owner, `&as_of=2026-01-${day}T12:00:00Z`)}`)).body.facts.map((f: any) => f.value);
    expect(await valueAt('05')).toEqual(['intern']);
    expect(await valueAt('15')).toEqual(['engineer']);
    expect(await valueAt('25')).toEqual(['lead']);
    const chain = await svc.call('GET', `/v1/memory/facts?${q(owner, '&history=true&subject_type=owner&predicate=job')}`);
    expect(chain.body.facts.map((f: any) => f.value)).toEqual(['intern', 'engineer', 'lead']);
  });

  it('asserts facts about nodes and edges, and 404s unknown subjects', async () => {
    const owner = 'subject-owner';
    await svc.call('POST', `/v1/memory/entities?${q(owner)}`, { body: { entity_type: 'person', memory_entity_id: 'bob' } });
    const f = await svc.call('POST', `/v1/memory/facts?${q(owner)}`, { body: { predicate: 'mood', value: null, subject_type: 'entity', subject_id: 'bob' } });
    expect(f.status).toBe(201);
    expect(f.body.value).toBeNull();
    const list = await svc.call('GET', `/v1/memory/facts?${q(owner, '&subject_type=entity&subject_id=bob')}`);
    expect(list.body.facts.map((x: any) => x.fact_id)).toEqual([f.body.fact_id]);
    expect((await svc.call('GET', `/v1/memory/facts?${q(owner, '&subject_type=owner')}`)).body.count).toBe(0);
    const ghost = await svc.call('POST', `/v1/memory/facts?${q(owner)}`, { body: { predicate: 'mood', value: 1, subject_type: 'entity', subject_id: 'ghost' } });
    expect(ghost.status).toBe(404);
    const edge = await svc.call('POST', `/v1/memory/facts?${q(owner)}`, { body: { predicate: 'since', value: 2020, subject_type: 'relationship', subject_id: 'nope' } });
    expect(edge.status).toBe(404);
  });

  it('retracts a fact softly; it never comes back and stays in history', async () => {
    const owner = 'retract-owner';
    const f = await svc.call('POST', `/v1/memory/facts?${q(owner)}`, { body: { predicate: 'status', value: 'busy' } });
    const r = await svc.call('DELETE', `/v1/memory/facts/${f.body.fact_id}?${q(owner)}`);
    expect(r.status).toBe(200);
    expect(r.body.invalid_from).not.toBeNull();
    const again = await svc.call('DELETE', `/v1/memory/facts/${f.body.fact_id}?${q(owner)}`);
    expect(again.body.invalid_from).toBe(r.body.invalid_from);
    expect((await svc.call('GET', `/v1/memory/facts?${q(owner)}`)).body.count).toBe(0);
    expect((await svc.call('GET', `/v1/memory/facts?${q(owner, '&include_inactive=true')}`)).body.count).toBe(1);
    expect((await svc.call('DELETE', `/v1/memory/facts/fact_unknown?${q(owner)}`)).status).toBe(404);
  });

  it('lists newest first and honours limit', async () => {
    const owner = 'order-owner';
    for (let i = 0; i < 5; i++) {
      await svc.call('POST', `/v1/memory/facts?${q(owner)}`, { body: { predicate: `p${i}`, value: i, observed_at: `2026-01-0${i + 1}T00:00:00Z` } });
    }
    const list = await svc.call('GET', `/v1/memory/facts?${q(owner, '&limit=3')}`);
    expect(list.body.facts.map((f: any) => f.value)).toEqual([4, 3, 2]);
    expect(list.body.count).toBe(3);
  });
});
