import { upsertEntity, type Entity, type EntityInput } from '../domain/entities.js';
import { planEntityErasure, type EntityErasure, type FactsAbout } from '../domain/entity-erasure.js';
import type { SubjectType } from '../domain/facts.js';
import { retractRelationship, upsertRelationship, type Relationship, type RelationshipInput } from '../domain/relationships.js';
import { ownerFields, type Scope } from '../domain/scope.js';
import { notFound } from '../errors.js';
import type { GraphStore } from '../store/graph.js';

/** What the node and edge commands read and write: the store itself, or a batch's buffer over it (src/actors/owner-batch.ts). */
export type GraphRecords = Pick<GraphStore, 'getEntity' | 'putEntity' | 'getRelationship' | 'putRelationship'>;

/**
 * The node and edge commands of an owner. They run inside the owner's LMDB write transaction (the actor
 * opens it, in the owner's order), so each decides on every earlier write of this owner; each throws
 * before its first put when the input is refused. They hold nothing in memory.
 */
export class GraphCommands {
  constructor(
    protected readonly scope: Scope,
    private readonly records: GraphRecords,
  ) {}

  upsertEntity(input: EntityInput, now: number): Entity {
    const previous = this.records.getEntity(this.scope, input.memory_entity_id);
    const entity = upsertEntity(previous, input, ownerFields(this.scope), now);
    this.records.putEntity(this.scope, entity, previous);
    return entity;
  }

  upsertRelationship(input: RelationshipInput, now: number): Relationship {
    for (const endpoint of [input.from_entity_id, input.to_entity_id]) {
      if (!this.records.getEntity(this.scope, endpoint)) throw notFound(`memory entity ${endpoint}`);
    }
    const previous = this.records.getRelationship(this.scope, input.relationship_id);
    const edge = upsertRelationship(previous, input, ownerFields(this.scope), now);
    this.records.putRelationship(this.scope, edge);
    return edge;
  }

  retractRelationship(id: string, now: number): Relationship {
    const edge = this.records.getRelationship(this.scope, id);
    if (!edge) throw notFound(`relationship ${id}`);
    const retracted = retractRelationship(edge, now);
    if (retracted !== edge) this.records.putRelationship(this.scope, retracted);
    return retracted;
  }

  /** Throws not found unless a fact's entity or relationship subject exists (in what the records hold). */
  requireSubject(type: SubjectType, id: string | null): void {
    if (type === 'entity' && !this.records.getEntity(this.scope, id ?? '')) throw notFound(`memory entity ${id}`);
    if (type === 'relationship' && !this.records.getRelationship(this.scope, id ?? '')) throw notFound(`relationship ${id}`);
  }
}

/** The entity and relationship part of an owner's actor: the commands over the store, and forgetting. */
export class OwnerGraph extends GraphCommands {
  constructor(
    scope: Scope,
    private readonly graph: GraphStore,
  ) {
    super(scope, graph);
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

  isActiveRelationship(id: string): boolean {
    return this.graph.getRelationship(this.scope, id)?.invalid_from === null;
  }
}
