import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEYS, ManualClock, startTestService, type TestService } from '../helpers/service.js';

/**
 * `GET /v1/memory/graph` (DECISIONS.md, The graph route), on one owner's graph written at known instants:
 *
 *   t0   E ──knows──▶ A ──knows──▶ B ──knows──▶ C ──works_at──▶ D        A ──works_at──▶ D (e_ad)
 *   t1   fact B.city = Paris; fact e_ab.since = 2019
 *   t2   fact B.city = Berlin (supersedes Paris); e_ad retracted
 *   t3   F created, A ──mentors──▶ F; a self-loop C ──knows──▶ C
 */
const T0 = Date.UTC(2026, 0, 1);
const HOUR = 3_600_000;
const [t0, t1, t2, t3] = [T0, T0 + HOUR, T0 + 2 * HOUR, T0 + 3 * HOUR];
const iso = (ms: number) => new Date(ms).toISOString();
const OWNER = 'graph-owner';

let svc: TestService;
const clock = new ManualClock(t0);
const edge: Record<string, string> = {};

const post = (path: string, body: object, owner = OWNER) => svc.call('POST', `/v1/memory/${path}?entity_id=${owner}`, { body });
const graph = (query: string, owner = OWNER, key: string = KEYS.acme) => svc.call('GET', `/v1/memory/graph?entity_id=${owner}&${query}`, { key });
const ids = (body: any) => ({
  nodes: body.nodes.map((n: any) => n.memory_entity_id),
  edges: body.edges.map((e: any) => e.relationship_id).sort(),
});
const sorted = (...names: string[]) => names.map((n) => edge[n]!).sort();

async function link(name: string, from: string, to: string, type: string) {
  const res = await post('relationships', { from_entity_id: from, to_entity_id: to, relationship_type: type });
  expect(res.status).toBe(201);
  edge[name] = res.body.relationship_id;
}

beforeAll(async () => {
  svc = await startTestService({ clock });
  for (const id of ['A', 'B', 'C', 'E']) expect((await post('entities', { entity_type: 'person', memory_entity_id: id })).status).toBe(201);
  expect((await post('entities', { entity_type: 'org', memory_entity_id: 'D' })).status).toBe(201);
  await link('ea', 'E', 'A', 'knows');
  await link('ab', 'A', 'B', 'knows');
  await link('bc', 'B', 'C', 'knows');
  await link('cd', 'C', 'D', 'works_at');
  await link('ad', 'A', 'D', 'works_at');
  clock.set(t1);
  expect((await post('facts', { subject_type: 'entity', subject_id: 'B', predicate: 'city', value: 'Paris' })).status).toBe(201);
  expect((await post('facts', { subject_type: 'relationship', subject_id: edge.ab, predicate: 'since', value: 2019 })).status).toBe(201);
  clock.set(t2);
  expect((await post('facts', { subject_type: 'entity', subject_id: 'B', predicate: 'city', value: 'Berlin' })).status).toBe(201);
  expect((await svc.call('DELETE', `/v1/memory/relationships/${edge.ad}?entity_id=${OWNER}`)).status).toBe(200);
  clock.set(t3);
  expect((await post('entities', { entity_type: 'person', memory_entity_id: 'F' })).status).toBe(201);
  await link('af', 'A', 'F', 'mentors');
  await link('cc', 'C', 'C', 'knows');
});
afterAll(async () => {
  await svc.stop();
});

describe('depth and direction', () => {
  it('depth 1 (the default) follows edges both ways from the start node, which comes first', async () => {
    const res = await graph('memory_entity_id=A');
    expect(res.status).toBe(200);
    expect(ids(res.body)).toEqual({ nodes: ['A', 'B', 'F', 'E'], edges: sorted('ea', 'ab', 'af') });
    expect(res.body.facts).toBeUndefined();
    expect(res.body.nodes[0]).toMatchObject({ memory_entity_id: 'A', entity_type: 'person', entity_id: OWNER });
  });

  it('each further hop adds the nodes one edge further, and the edges between returned nodes', async () => {
    expect(ids((await graph('memory_entity_id=A&depth=2')).body)).toEqual({
      nodes: ['A', 'B', 'F', 'E', 'C'],
      edges: sorted('ea', 'ab', 'af', 'bc', 'cc'),
    });
    expect(ids((await graph('memory_entity_id=A&depth=3')).body)).toEqual({
      nodes: ['A', 'B', 'F', 'E', 'C', 'D'],
      edges: sorted('ea', 'ab', 'af', 'bc', 'cc', 'cd'),
    });
  });

  it('an edge between two nodes at the boundary is returned though the walk did not cross it', async () => {
    for (const id of ['X', 'Y', 'Z']) await post('entities', { entity_type: 'point', memory_entity_id: id }, 'triangle');
    const yz = (await post('relationships', { from_entity_id: 'Y', to_entity_id: 'Z', relationship_type: 'near' }, 'triangle')).body.relationship_id;
    await post('relationships', { from_entity_id: 'X', to_entity_id: 'Y', relationship_type: 'near' }, 'triangle');
    await post('relationships', { from_entity_id: 'X', to_entity_id: 'Z', relationship_type: 'near' }, 'triangle');
    const res = await graph('memory_entity_id=X&direction=outgoing', 'triangle');
    expect(res.body.nodes.map((n: any) => n.memory_entity_id)).toEqual(['X', 'Y', 'Z']);
    expect(res.body.edges).toHaveLength(3);
    expect(res.body.edges.map((e: any) => e.relationship_id)).toContain(yz);
    expect((await graph('memory_entity_id=X&direction=outgoing&relationship_type=other', 'triangle')).body.edges).toEqual([]);
  });

  it('direction=outgoing follows edges from the node it stands on, incoming edges to it', async () => {
    expect(ids((await graph('memory_entity_id=A&depth=3&direction=outgoing')).body)).toEqual({
      nodes: ['A', 'B', 'F', 'C', 'D'],
      edges: sorted('ab', 'af', 'bc', 'cc', 'cd'),
    });
    expect(ids((await graph('memory_entity_id=A&depth=3&direction=incoming')).body)).toEqual({ nodes: ['A', 'E'], edges: sorted('ea') });
    expect(ids((await graph('memory_entity_id=D&depth=3&direction=incoming')).body)).toEqual({
      nodes: ['D', 'C', 'B', 'A'],
      edges: sorted('cd', 'cc', 'bc', 'ab'),
    });
  });

  it('relationship_type follows and returns only edges of that type', async () => {
    expect(ids((await graph('memory_entity_id=A&depth=3&relationship_type=knows')).body)).toEqual({
      nodes: ['A', 'B', 'E', 'C'],
      edges: sorted('ea', 'ab', 'bc', 'cc'),
    });
    // Now A's only works_at edge is retracted: A stands alone.
    expect(ids((await graph('memory_entity_id=A&depth=3&relationship_type=works_at')).body)).toEqual({ nodes: ['A'], edges: [] });
  });

  it('a self-loop is returned once', async () => {
    const res = await graph('memory_entity_id=C&relationship_type=knows');
    expect(res.body.edges.filter((e: any) => e.relationship_id === edge.cc)).toHaveLength(1);
  });
});

describe('as_of', () => {
  it('before the retraction, the retracted edge and what it reached are there; after, they are gone', async () => {
    const before = await graph(`memory_entity_id=A&relationship_type=works_at&depth=3&as_of=${iso(t1)}`);
    expect(ids(before.body)).toEqual({ nodes: ['A', 'D', 'C'], edges: sorted('ad', 'cd') });
    expect(before.body.edges.find((e: any) => e.relationship_id === edge.ad).invalid_from).toBe(iso(t2));
    const after = await graph(`memory_entity_id=A&relationship_type=works_at&depth=3&as_of=${iso(t2)}`);
    expect(ids(after.body)).toEqual({ nodes: ['A'], edges: [] });
  });

  it('a node created after as_of is neither returned nor walked through; as the start node, the graph is empty', async () => {
    expect(ids((await graph(`memory_entity_id=A&as_of=${iso(t2)}`)).body)).toEqual({ nodes: ['A', 'B', 'E'], edges: sorted('ea', 'ab') });
    const early = await graph(`memory_entity_id=F&as_of=${iso(t2)}`);
    expect(early.status).toBe(200);
    expect(early.body).toEqual({ nodes: [], edges: [] });
  });

  it('include_facts gives the facts active then: the superseded value before the change, the new one after', async () => {
    const between = await graph(`memory_entity_id=A&include_facts=true&as_of=${iso(t1 + 1)}`);
    const facts = (body: any) => body.facts.map((f: any) => [f.subject_id, f.predicate, f.value]);
    expect(facts(between.body)).toEqual([
      ['B', 'city', 'Paris'],
      [edge.ab, 'since', 2019],
    ]);
    expect(between.body.facts[0].invalid_from).toBe(iso(t2));
    expect(facts((await graph('memory_entity_id=A&include_facts=true')).body)).toEqual([
      ['B', 'city', 'Berlin'],
      [edge.ab, 'since', 2019],
    ]);
    expect((await graph(`memory_entity_id=A&include_facts=true&as_of=${iso(t0)}`)).body.facts).toEqual([]);
  });
});

describe('errors and isolation', () => {
  it('an unknown start node is 404', async () => {
    const res = await graph('memory_entity_id=nobody');
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('not_found');
  });

  it.each([
    ['depth=4', 'depth'],
    ['depth=0', 'depth'],
    ['depth=1.5', 'depth'],
    ['direction=sideways', 'direction'],
    ['as_of=yesterday', 'as_of'],
    ['include_facts=yes', 'include_facts'],
    ['colour=red', 'colour'],
  ])('%s is 400 naming %s', async (query, name) => {
    const res = await graph(`memory_entity_id=A&${query}`);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_input');
    expect(res.body.error).toContain(name);
  });

  it('memory_entity_id is required', async () => {
    const res = await svc.call('GET', `/v1/memory/graph?entity_id=${OWNER}`);
    expect(res.status).toBe(400);
    expect(res.body.error).toContain('memory_entity_id');
  });

  it("another owner, tenant or partition finds nothing of this owner's graph (404)", async () => {
    expect((await graph('memory_entity_id=A', 'someone-else')).status).toBe(404);
    expect((await graph('memory_entity_id=A', OWNER, KEYS.globex)).status).toBe(404);
    expect((await svc.call('GET', `/v1/memory/graph?entity_id=${OWNER}&partition=p1&memory_entity_id=A`)).status).toBe(404);
  });

  it("an owner's node with the same id as another owner's never brings that owner's edges", async () => {
    expect((await post('entities', { entity_type: 'person', memory_entity_id: 'A' }, 'neighbour')).status).toBe(201);
    expect(await graph('memory_entity_id=A&depth=3', 'neighbour').then((r) => ids(r.body))).toEqual({ nodes: ['A'], edges: [] });
  });
});

describe('caps', () => {
  let capped: TestService;
  beforeAll(async () => {
    capped = await startTestService({ env: { GRAPH_MAX_NODES: '3', GRAPH_MAX_EDGES: '3', GRAPH_MAX_FACTS: '1' } });
    const make = (body: object, path = 'entities') => capped.call('POST', `/v1/memory/${path}?entity_id=hub`, { body });
    await make({ entity_type: 'hub', memory_entity_id: 'H' });
    for (const n of ['n1', 'n2', 'n3']) {
      await make({ entity_type: 'leaf', memory_entity_id: n });
      await make({ from_entity_id: 'H', to_entity_id: n, relationship_type: 'has' }, 'relationships');
      await make({ subject_type: 'entity', subject_id: n, predicate: 'p', value: 1 }, 'facts');
    }
  });
  afterAll(async () => {
    await capped.stop();
  });
  const capGraph = (query: string) => capped.call('GET', `/v1/memory/graph?entity_id=hub&${query}`);

  it('a neighbourhood past the node cap is 400 naming the cap', async () => {
    const res = await capGraph('memory_entity_id=H');
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/more than 3 nodes \(the cap, GRAPH_MAX_NODES\)/);
  });

  it('within the node cap, past the edge cap, is 400 naming the edge cap', async () => {
    await capped.call('POST', '/v1/memory/relationships?entity_id=hub', { body: { from_entity_id: 'n1', to_entity_id: 'n1', relationship_type: 'self' } });
    for (const type of ['back', 'back-again']) {
      await capped.call('POST', '/v1/memory/relationships?entity_id=hub', { body: { from_entity_id: 'n1', to_entity_id: 'H', relationship_type: type } });
    }
    expect(ids((await capGraph('memory_entity_id=n1&relationship_type=has')).body)).toEqual({ nodes: ['n1', 'H'], edges: expect.any(Array) });
    const res = await capGraph('memory_entity_id=n1&direction=outgoing');
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/more than 3 edges \(the cap, GRAPH_MAX_EDGES\)/);
  });

  it('include_facts past the facts cap is 400 naming it; without facts the same walk answers', async () => {
    await capped.call('POST', '/v1/memory/facts?entity_id=hub', { body: { subject_type: 'entity', subject_id: 'n2', predicate: 'q', value: 2 } });
    expect((await capGraph('memory_entity_id=n2')).status).toBe(200);
    const res = await capGraph('memory_entity_id=n2&include_facts=true');
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/more than 1 facts \(the cap, GRAPH_MAX_FACTS\)/);
  });
});
