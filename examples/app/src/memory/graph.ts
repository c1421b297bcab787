import type { Entity, Fact, Owner, Relationship } from '@engram-memory/sdk';

export interface Neighbourhood {
  nodes: Entity[];
  edges: Relationship[];
  facts?: Fact[];
}

// TEMPORARY until the graph route lands on main: the same answer built from the list routes.
export async function neighbourhood(owner: Owner, node: string, params: { depth: number; as_of?: string }): Promise<Neighbourhood> {
  const asOf = params.as_of ? Date.parse(params.as_of) : Date.now();
  const entities: Entity[] = [];
  for await (const e of owner.entities.iterate({ limit: 1000 })) entities.push(e);
  const edges: Relationship[] = [];
  for await (const r of owner.relationships.iterate(params.as_of ? { as_of: params.as_of, limit: 1000 } : { limit: 1000 })) edges.push(r);
  const byId = new Map(entities.filter((e) => Date.parse(e.created_at) <= asOf).map((e) => [e.memory_entity_id, e]));
  if (!byId.has(node)) return { nodes: [], edges: [] };
  const seen = [node];
  let frontier = [node];
  for (let d = 0; d < params.depth; d++) {
    const next: string[] = [];
    for (const e of edges) for (const [a, b] of [[e.from_entity_id, e.to_entity_id], [e.to_entity_id, e.from_entity_id]] as const) if (frontier.includes(a) && !seen.includes(b) && byId.has(b)) { seen.push(b); next.push(b); }
    frontier = next;
  }
  const facts: Fact[] = [];
  for await (const f of owner.facts.iterate(params.as_of ? { as_of: params.as_of, limit: 1000 } : { limit: 1000 })) facts.push(f);
  const inGraph = edges.filter((e) => seen.includes(e.from_entity_id) && seen.includes(e.to_entity_id));
  const subjects = new Set([...seen, ...inGraph.map((e) => e.relationship_id)]);
  return { nodes: seen.map((id) => byId.get(id)!), edges: inGraph, facts: facts.filter((f) => f.subject_id !== null && subjects.has(f.subject_id)) };
}
