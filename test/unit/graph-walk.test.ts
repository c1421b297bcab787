import { describe, expect, it } from 'vitest';
import type { Entity } from '../../src/domain/entities.js';
import { walkNeighbourhood, WALK_SLICE_EDGES, type GraphSource, type GraphWalk } from '../../src/domain/graph-walk.js';
import type { Relationship } from '../../src/domain/relationships.js';

const T = Date.UTC(2026, 0, 1);
const node = (id: string, created_at = T): Entity =>
  ({ memory_entity_id: id, entity_id: 'o', partition: null, entity_type: 't', display_name: null, aliases: [], attributes: {}, created_at, updated_at: created_at }) as Entity;
const link = (id: string, from: string, to: string, observed_at = T, invalid_from: number | null = null): Relationship => ({
  relationship_id: id, entity_id: 'o', partition: null, from_entity_id: from, to_entity_id: to, relationship_type: 'r', attributes: {},
  valid_from: null, observed_at, invalid_from, created_at: observed_at, updated_at: observed_at,
});

/** An in-memory graph that counts the edges the walk reads. */
function source(nodes: Entity[], edges: Relationship[]): GraphSource & { reads: number } {
  const byId = new Map(nodes.map((n) => [n.memory_entity_id, n]));
  const edgeById = new Map(edges.map((e) => [e.relationship_id, e]));
  const src = {
    reads: 0,
    entity: (id: string) => byId.get(id),
    relationship(id: string) {
      src.reads++;
      return edgeById.get(id);
    },
    *edgeIdsTouching(id: string) {
      for (const e of edges) if (e.from_entity_id === id || e.to_entity_id === id) yield e.relationship_id;
    },
  };
  return src;
}

const walk = (extra: Partial<GraphWalk> = {}): GraphWalk => ({ depth: 1, direction: 'both', caps: { nodes: 10_000, edges: 50_000 }, ...extra });

/** Runs the generator to its end, counting its pauses. */
function run<T>(steps: Generator<void, T>): { value: T; pauses: number } {
  let pauses = 0;
  for (;;) {
    const step = steps.next();
    if (step.done) return { value: step.value, pauses };
    pauses++;
  }
}

describe('walkNeighbourhood', () => {
  const star = (leaves: number) => ({
    nodes: [node('H'), ...Array.from({ length: leaves }, (_, i) => node(`L${i}`))],
    edges: Array.from({ length: leaves }, (_, i) => link(`e${i}`, 'H', `L${i}`)),
  });

  it('pauses once per slice of edges read, and gives the same answer as if it never paused', () => {
    const { nodes, edges } = star(2 * WALK_SLICE_EDGES + 10);
    const src = source(nodes, edges);
    const { value, pauses } = run(walkNeighbourhood(nodes[0]!, walk(), src));
    expect(value.nodes).toHaveLength(nodes.length);
    expect(value.edges).toHaveLength(edges.length);
    expect(pauses).toBe(Math.floor(src.reads / WALK_SLICE_EDGES));
    expect(pauses).toBeGreaterThanOrEqual(2);
  });

  it('stops reading as soon as a cap is passed, with a message naming it', () => {
    const { nodes, edges } = star(5000);
    const src = source(nodes, edges);
    expect(() => run(walkNeighbourhood(nodes[0]!, walk({ caps: { nodes: 100, edges: 50_000 } }), src))).toThrow(/more than 100 nodes \(the cap, GRAPH_MAX_NODES\)/);
    expect(src.reads).toBe(100);
    expect(() => run(walkNeighbourhood(nodes[0]!, walk({ caps: { nodes: 10_000, edges: 10 } }), source(nodes, edges)))).toThrow(/more than 10 edges \(the cap, GRAPH_MAX_EDGES\)/);
  });

  it('as of an instant: an edge is there from its observed_at until its invalid_from, a node from its created_at', () => {
    const nodes = [node('A'), node('B'), node('C', T + 5)];
    const edges = [link('ab', 'A', 'B', T + 1, T + 3), link('ac', 'A', 'C', T + 5)];
    const ids = (asOf: number) => run(walkNeighbourhood(nodes[0]!, walk({ asOf }), source(nodes, edges))).value.nodes.map((n) => n.memory_entity_id);
    expect([T, T + 1, T + 2, T + 3, T + 5].map(ids)).toEqual([['A'], ['A', 'B'], ['A', 'B'], ['A'], ['A', 'C']]);
    expect(run(walkNeighbourhood(nodes[2]!, walk({ asOf: T + 4 }), source(nodes, edges))).value).toEqual({ nodes: [], edges: [] });
  });

  it('reads each edge record once, though it is seen from both ends', () => {
    const { nodes, edges } = star(300);
    const src = source(nodes, edges);
    const { value } = run(walkNeighbourhood(nodes[0]!, walk({ depth: 2 }), src));
    expect(value.edges).toHaveLength(300);
    expect(src.reads).toBe(300);
  });

  it('an edge to a node that no longer exists (forgotten) is skipped', () => {
    const nodes = [node('A')];
    const { value } = run(walkNeighbourhood(nodes[0]!, walk(), source(nodes, [link('ax', 'A', 'X')])));
    expect(value).toEqual({ nodes: [nodes[0]], edges: [] });
  });
});
