import type { Entity } from './entities.js';
import type { FactKey, SubjectType } from './facts.js';
import type { Relationship } from './relationships.js';

/**
 * What forgetting a node erases: the node, every edge from or to it (active or retracted), and every
 * fact about the node or about one of those edges, in every state (active, superseded, retracted,
 * consolidated). Facts about the owner or about other nodes and edges stay, even when their value
 * happens to name the node: a value is data, not a reference.
 */
export interface EntityErasure {
  entity: Entity;
  relationships: Relationship[];
  facts: FactKey[];
}

/** What the forget route answers: how many records of each kind were erased. */
export interface ErasedCounts {
  entities: number;
  relationships: number;
  facts: number;
}

/** Every stored fact (any state) whose subject is `subjectType`/`subjectId`. */
export type FactsAbout = (subjectType: SubjectType, subjectId: string) => Iterable<FactKey>;

/**
 * Decides what hangs on `entity`. `candidateEdges` are edges found through the endpoint indexes (an edge
 * may come twice: a self-loop is both from and to the node); only those with the node as an endpoint are
 * kept, each once. Facts are kept only when their subject is the node or a kept edge, each once.
 */
export function planEntityErasure(entity: Entity, candidateEdges: Iterable<Relationship>, factsAbout: FactsAbout): EntityErasure {
  const id = entity.memory_entity_id;
  const relationships = new Map<string, Relationship>();
  for (const edge of candidateEdges) {
    if (edge.from_entity_id === id || edge.to_entity_id === id) relationships.set(edge.relationship_id, edge);
  }
  const subjects: Array<[SubjectType, string]> = [['entity', id]];
  for (const edgeId of relationships.keys()) subjects.push(['relationship', edgeId]);
  const facts = new Map<string, FactKey>();
  for (const [subjectType, subjectId] of subjects) {
    for (const fact of factsAbout(subjectType, subjectId)) {
      if (fact.subject_type === subjectType && fact.subject_id === subjectId) facts.set(fact.fact_id, fact);
    }
  }
  return { entity, relationships: [...relationships.values()], facts: [...facts.values()] };
}

export function erasedCounts(erasure: EntityErasure): ErasedCounts {
  return { entities: 1, relationships: erasure.relationships.length, facts: erasure.facts.length };
}
