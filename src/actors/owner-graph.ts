import { upsertEntity, type Entity, type EntityInput } from '../domain/entities.js';
import { planEntityErasure, type EntityErasure, type FactsAbout } from '../domain/entity-erasure.js';
import type { SubjectType } from '../domain/facts.js';
import { retractRelationship, upsertRelationship, type Relationship, type RelationshipInput } from '../domain/relationships.js';
import { ownerFields, type Scope } from '../domain/scope.js';
import { notFound } from '../errors.js';
import type { GraphStore } from '../store/graph.js';

/**
 * The entity and relationship part of an owner's actor. Its commands run inside the owner's LMDB write
 * transaction (the actor opens it, in the owner's order), so each decides on every earlier write of this
 * owner; each throws before its first put when the input is refused. It holds nothing in memory.
 */
export class OwnerGraph {
  constructor(
    private readonly scope: Scope,
    private readonly graph: GraphStore,
  ) {}

  upsertEntity(input: EntityInput, now: number): Entity {
    const previous = this.graph.getEntity(this.scope, input.memory_entity_id);
    const entity = upsertEntity(previous, input, ownerFields(this.scope), now);
    this.graph.putEntity(this.scope, entity, previous);
    return entity;
  }

  upsertRelationship(input: RelationshipInput, now: number): Relationship {
    for (const endpoint of [input.from_entity_id, input.to_entity_id]) {
      if (!this.graph.getEntity(this.scope, endpoint)) throw notFound(`memory entity ${endpoint}`);
    }
    const previous = this.graph.getRelationship(this.scope, input.relationship_id);
    const edge = upsertRelationship(previous, input, ownerFields(this.scope), now);
    this.graph.putRelationship(this.scope, edge);
    return edge;
  }

  retractRelationship(id: string, now: number): Relationship {
    const edge = this.graph.getRelationship(this.scope, id);
    if (!edge) throw notFound(`relationship ${id}`);
    const retracted = retractRelationship(edge, now);
    if (retracted !== edge) this.graph.putRelationship(this.scope, retracted);
    return retracted;
  }

  /**
   * Removes a node, the edges from and to it and the facts about them (src/domain/entity-erasure.ts);
   * `factsAbout` reads the owner's stored facts. Not found (before any write) when the node does not exist.
   */
  forgetEntity(id: string, factsAbout: FactsAbout): EntityErasure {
    const entity = this.graph.getEntity(this.scope, id);
    if (!entity) throw notFound(`memory entity ${id}`);
    const erasure = planEntityErasure(entity, this.graph.relationshipsTouching(this.scope, id), factsAbout);
    for (const fact of erasure.facts) this.graph.removeFact(this.scope, fact.fact_id);
    for (const edge of erasure.relationships) this.graph.removeRelationship(this.scope, edge);
    this.graph.removeEntity(this.scope, entity);
    return erasure;
  }

  /** Indexes the names of these nodes (those still there): a page of an owner written before the name index. */
  indexNames(ids: readonly string[]): void {
    for (const id of ids) {
      const entity = this.graph.getEntity(this.scope, id);
      if (entity) this.graph.names.put(this.scope, entity, undefined);
    }
  }

  markNamesIndexed(): void {
    this.graph.names.markComplete(this.scope);
  }

  /** Throws not found unless a fact's entity or relationship subject exists (in the committed snapshot). */
  requireSubject(type: SubjectType, id: string | null): void {
    if (type === 'entity' && !this.graph.getEntity(this.scope, id ?? '')) throw notFound(`memory entity ${id}`);
    if (type === 'relationship' && !this.graph.getRelationship(this.scope, id ?? '')) throw notFound(`relationship ${id}`);
  }

  isActiveRelationship(id: string): boolean {
    return this.graph.getRelationship(this.scope, id)?.invalid_from === null;
  }
}
