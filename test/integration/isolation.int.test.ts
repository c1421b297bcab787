import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEYS, startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => {
  await svc.stop();
});

/** The same entity_id under different tenants and partitions: each scope sees only its own records. */
const scopes = [
  { name: 'acme/no partition', key: KEYS.acme, partition: undefined },
  { name: 'acme/p1', key: KEYS.acme, partition: 'p1' },
  { name: 'globex/no partition', key: KEYS.globex, partition: undefined },
  { name: 'globex/p1', key: KEYS.globex, partition: 'p1' },
  { name: 'platform/p1', key: KEYS.platform, partition: 'p1' },
  { name: 'platform/p2', key: KEYS.platform, partition: 'p2' },
];
const qs = (partition: string | undefined) => `entity_id=shared-user${partition ? `&partition=${partition}` : ''}`;

describe('owner isolation', () => {
  const written = new Map<string, { entity: string; fact: string; edge: string }>();

  beforeAll(async () => {
    for (const s of scopes) {
      const entity = await svc.call('POST', `/v1/memory/entities?${qs(s.partition)}`, { key: s.key, body: { entity_type: 'person', memory_entity_id: `node-${s.name.replace(/\W/g, '-')}` } });
      await svc.call('POST', `/v1/memory/entities?${qs(s.partition)}`, { key: s.key, body: { entity_type: 'person', memory_entity_id: 'same-node' } });
      const edge = await svc.call('POST', `/v1/memory/relationships?${qs(s.partition)}`, { key: s.key, body: { from_entity_id: entity.body.memory_entity_id, to_entity_id: 'same-node', relationship_type: 'knows' } });
      const fact = await svc.call('POST', `/v1/memory/facts?${qs(s.partition)}`, { key: s.key, body: { predicate: 'color', value: s.name } });
      expect([entity.status, edge.status, fact.status]).toEqual([201, 201, 201]);
      written.set(s.name, { entity: entity.body.memory_entity_id, fact: fact.body.fact_id, edge: edge.body.relationship_id });
    }
  });

  it.each(scopes)('$name lists only its own records', async (s) => {
    const mine = written.get(s.name)!;
    const facts = await svc.call('GET', `/v1/memory/facts?${qs(s.partition)}&include_inactive=true`, { key: s.key });
    expect(facts.body.facts.map((f: any) => f.value)).toEqual([s.name]);
    const entities = await svc.call('GET', `/v1/memory/entities?${qs(s.partition)}`, { key: s.key });
    expect(entities.body.entities.map((e: any) => e.memory_entity_id).sort()).toEqual([mine.entity, 'same-node'].sort());
    const edges = await svc.call('GET', `/v1/memory/relationships?${qs(s.partition)}&include_inactive=true`, { key: s.key });
    expect(edges.body.relationships.map((r: any) => r.relationship_id)).toEqual([mine.edge]);
    const asOf = await svc.call('GET', `/v1/memory/facts?${qs(s.partition)}&as_of=2100-01-01T00:00:00Z`, { key: s.key });
    expect(asOf.body.facts.map((f: any) => f.fact_id)).toEqual([mine.fact]);
    // The node every scope calls same-node: its neighbourhood is this scope's own edge, never another's.
    const graph = await svc.call('GET', `/v1/memory/graph?${qs(s.partition)}&memory_entity_id=same-node&include_facts=true`, { key: s.key });
    expect(graph.body.edges.map((r: any) => r.relationship_id)).toEqual([mine.edge]);
    expect(graph.body.nodes.map((e: any) => e.memory_entity_id)).toEqual(['same-node', mine.entity]);
  });

  it.each(scopes)("$name gets 404 for every other scope's records by id", async (s) => {
    for (const [other, ids] of written) {
      if (other === s.name) continue;
      expect((await svc.call('GET', `/v1/memory/entities/${ids.entity}?${qs(s.partition)}`, { key: s.key })).status).toBe(404);
      expect((await svc.call('GET', `/v1/memory/graph?${qs(s.partition)}&memory_entity_id=${ids.entity}`, { key: s.key })).status).toBe(404);
      expect((await svc.call('DELETE', `/v1/memory/facts/${ids.fact}?${qs(s.partition)}`, { key: s.key })).status).toBe(404);
      expect((await svc.call('DELETE', `/v1/memory/relationships/${ids.edge}?${qs(s.partition)}`, { key: s.key })).status).toBe(404);
      const supersede = await svc.call('POST', `/v1/memory/facts?${qs(s.partition)}`, { key: s.key, body: { predicate: 'x', value: 1, supersedes_fact_id: ids.fact } });
      expect(supersede.status).toBe(400);
    }
  });

  it('an owner cannot link to or talk about another owner\'s nodes', async () => {
    const other = written.get('globex/no partition')!;
    const edge = await svc.call('POST', `/v1/memory/relationships?${qs(undefined)}`, { key: KEYS.acme, body: { from_entity_id: 'same-node', to_entity_id: other.entity, relationship_type: 'knows' } });
    expect(edge.status).toBe(404);
    const fact = await svc.call('POST', `/v1/memory/facts?${qs(undefined)}`, { key: KEYS.acme, body: { predicate: 'x', value: 1, subject_type: 'relationship', subject_id: other.edge } });
    expect(fact.status).toBe(404);
  });

  it('another owner of the same tenant sees nothing', async () => {
    const facts = await svc.call('GET', '/v1/memory/facts?entity_id=someone-else&include_inactive=true');
    expect(facts.body.count).toBe(0);
  });

  it('a multi-tenant key must name a partition', async () => {
    const res = await svc.call('GET', '/v1/memory/facts?entity_id=shared-user', { key: KEYS.platform });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/partition/);
  });
});
