import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => {
  await svc.stop();
});

const routes = ['/v1/memory/facts', '/v1/memory/entities', '/v1/memory/relationships'];

describe('fuzzing the HTTP edge', () => {
  it('random JSON bodies and query strings never produce a 5xx, and every error has the error body', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...routes),
        fc.oneof(fc.jsonValue(), fc.string()),
        fc.dictionary(fc.constantFrom('entity_id', 'partition', 'limit', 'as_of', 'zzz'), fc.string({ maxLength: 20 })),
        async (route, body, query) => {
          const qs = new URLSearchParams(query).toString();
          const res = await svc.call('POST', `${route}?${qs}`, typeof body === 'string' ? { rawBody: body } : { body });
          expect(res.status).toBeLessThan(500);
          if (res.status >= 400) expect(Object.keys(res.body).sort()).toEqual(['code', 'error', 'request_id']);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('fuzzing the graph route', () => {
  beforeAll(async () => {
    const q = '?entity_id=fuzz-graph';
    for (const id of ['a', 'b', 'c', 'd']) await svc.call('POST', `/v1/memory/entities${q}`, { body: { entity_type: 'n', memory_entity_id: id } });
    for (const [from, to, type] of [['a', 'b', 'x'], ['b', 'c', 'y'], ['c', 'a', 'x'], ['c', 'd', 'x'], ['d', 'd', 'y']]) {
      await svc.call('POST', `/v1/memory/relationships${q}`, { body: { from_entity_id: from, to_entity_id: to, relationship_type: type } });
    }
    await svc.call('POST', `/v1/memory/facts${q}`, { body: { subject_type: 'entity', subject_id: 'b', predicate: 'p', value: 1 } });
  });

  it('random parameters never produce a 5xx; every answer is a neighbourhood: start first, no repeats, edges within it', async () => {
    const param = (values: string[]) => fc.oneof(fc.constantFrom(...values), fc.string({ maxLength: 12 }));
    await fc.assert(
      fc.asyncProperty(
        fc.record(
          {
            memory_entity_id: param(['a', 'b', 'c', 'd', 'zz']),
            depth: param(['1', '2', '3', '4', '0', '-1', '2.0']),
            direction: param(['both', 'outgoing', 'incoming', 'up']),
            relationship_type: param(['x', 'y']),
            as_of: param(['2000-01-01T00:00:00Z', '2999-01-01T00:00:00Z', 'now']),
            include_facts: param(['true', 'false', '1']),
          },
          { requiredKeys: [] },
        ),
        async (query) => {
          const res = await svc.call('GET', `/v1/memory/graph?entity_id=fuzz-graph&${new URLSearchParams(query)}`);
          expect(res.status).toBeLessThan(500);
          if (res.status !== 200) {
            expect(Object.keys(res.body).sort()).toEqual(['code', 'error', 'request_id']);
            return;
          }
          const nodes: string[] = res.body.nodes.map((n: any) => n.memory_entity_id);
          if (nodes.length > 0) expect(nodes[0]).toBe(query.memory_entity_id);
          expect(new Set(nodes).size).toBe(nodes.length);
          const edges: any[] = res.body.edges;
          expect(new Set(edges.map((e) => e.relationship_id)).size).toBe(edges.length);
          for (const e of edges) expect(nodes.includes(e.from_entity_id) && nodes.includes(e.to_entity_id)).toBe(true);
          if (query.relationship_type !== undefined) for (const e of edges) expect(e.relationship_type).toBe(query.relationship_type);
        },
      ),
      { numRuns: 300 },
    );
  });
});
