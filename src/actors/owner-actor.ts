import type { Clock } from '../clock.js';
import { planConsolidation, type ConsolidationReport } from '../domain/consolidation.js';
import { upsertEntity, type Entity, type EntityInput } from '../domain/entities.js';
import { applyInvalidation, planAssertion, retractFact, type Fact, type FactAssertion } from '../domain/facts.js';
import { retractRelationship, upsertRelationship, type Relationship, type RelationshipInput } from '../domain/relationships.js';
import { ownerFields, type Scope } from '../domain/scope.js';
import { invalidInput, notFound } from '../errors.js';
import type { GraphStore } from '../store/graph.js';
import type { Store } from '../store/lmdb.js';
import { Mailbox } from './mailbox.js';

export interface OwnerActorDeps {
  store: Store;
  graph: GraphStore;
  clock: Clock;
}

/** What a caller asserts, before the actor stamps it. */
export type FactCommand = Omit<FactAssertion, 'observed_at' | 'entity_id' | 'partition'> & {
  observed_at?: number | undefined;
  supersedes_fact_id?: string | undefined;
};

/**
 * One owner's single writer. Every command decides inside the LMDB write transaction (so it sees every
 * earlier write of this owner) and throws before its first put when the input is refused.
 */
export class OwnerActor {
  private readonly mailbox = new Mailbox();
  constructor(
    readonly scope: Scope,
    private readonly deps: OwnerActorDeps,
  ) {}

  get busy(): boolean {
    return this.mailbox.busy;
  }

  /** Runs `decideAndWrite` in this owner's order inside one write transaction, with the commit instant. */
  write<T>(decideAndWrite: (now: number) => T): Promise<T> {
    return this.mailbox.submit(
      () => undefined,
      () => this.deps.store.transaction(() => decideAndWrite(this.deps.clock.now())),
    );
  }

  upsertEntity(input: EntityInput): Promise<Entity> {
    return this.write((now) => {
      const { graph } = this.deps;
      const previous = graph.getEntity(this.scope, input.memory_entity_id);
      const entity = upsertEntity(previous, input, ownerFields(this.scope), now);
      graph.putEntity(this.scope, entity, previous);
      return entity;
    });
  }

  upsertRelationship(input: RelationshipInput): Promise<Relationship> {
    return this.write((now) => {
      const { graph } = this.deps;
      for (const endpoint of [input.from_entity_id, input.to_entity_id]) {
        if (!graph.getEntity(this.scope, endpoint)) throw notFound(`memory entity ${endpoint}`);
      }
      const previous = graph.getRelationship(this.scope, input.relationship_id);
      const edge = upsertRelationship(previous, input, ownerFields(this.scope), now);
      graph.putRelationship(this.scope, edge);
      return edge;
    });
  }

  retractRelationship(id: string): Promise<Relationship> {
    return this.write((now) => {
      const edge = this.deps.graph.getRelationship(this.scope, id);
      if (!edge) throw notFound(`relationship ${id}`);
      const retracted = retractRelationship(edge, now);
      if (retracted !== edge) this.deps.graph.putRelationship(this.scope, retracted);
      return retracted;
    });
  }

  assertFact(command: FactCommand): Promise<Fact> {
    return this.write((now) => {
      const { graph } = this.deps;
      this.requireSubject(command.subject_type, command.subject_id);
      let explicitTarget: Fact | null = null;
      if (command.supersedes_fact_id !== undefined) {
        explicitTarget = graph.getFact(this.scope, command.supersedes_fact_id) ?? null;
        if (!explicitTarget || explicitTarget.invalid_from !== null) {
          throw invalidInput(`supersedes_fact_id ${command.supersedes_fact_id} does not name an active fact in this scope`);
        }
      }
      const { supersedes_fact_id: _named, observed_at, ...rest } = command;
      const incoming: FactAssertion = { ...rest, ...ownerFields(this.scope), observed_at: observed_at ?? now };
      const chain = graph.factNeighbourhood(this.scope, incoming.subject_type, incoming.subject_id, incoming.predicate, incoming.observed_at);
      const plan = planAssertion({ chain, explicitTarget, incoming, now });
      for (const { fact_id, invalid_from } of plan.invalidations) {
        const stored = chain.find((f) => f.fact_id === fact_id) ?? explicitTarget;
        if (stored) graph.putFact(this.scope, applyInvalidation(stored, invalid_from, now), stored);
      }
      graph.putFact(this.scope, plan.fact);
      return plan.fact;
    });
  }

  retractFact(id: string): Promise<Fact> {
    return this.write((now) => {
      const fact = this.deps.graph.getFact(this.scope, id);
      if (!fact) throw notFound(`fact ${id}`);
      const retracted = retractFact(fact, now);
      if (retracted !== fact) this.deps.graph.putFact(this.scope, retracted, fact);
      return retracted;
    });
  }

  /**
   * Retracts the scope's redundant facts (src/domain/consolidation.ts). Planned and written in one
   * transaction of this owner's queue, so no assertion can slip between the plan and the retractions.
   */
  consolidate(): Promise<ConsolidationReport> {
    return this.write((now) => {
      const { graph } = this.deps;
      const facts = graph.activeFacts(this.scope);
      const activeRelationshipIds = new Set<string>();
      for (const f of facts) {
        const id = f.subject_type === 'relationship' ? f.subject_id : null;
        if (id !== null && graph.getRelationship(this.scope, id)?.invalid_from === null) activeRelationshipIds.add(id);
      }
      const plan = planConsolidation({ facts, activeRelationshipIds });
      for (const { fact } of plan.retract) graph.putFact(this.scope, retractFact(fact, now), fact);
      return plan.report;
    });
  }

  private requireSubject(type: Fact['subject_type'], id: string | null): void {
    const { graph } = this.deps;
    if (type === 'entity' && !graph.getEntity(this.scope, id ?? '')) throw notFound(`memory entity ${id}`);
    if (type === 'relationship' && !graph.getRelationship(this.scope, id ?? '')) throw notFound(`relationship ${id}`);
  }
}
