import type { Clock } from '../clock.js';
import { planConsolidation, type ConsolidationReport } from '../domain/consolidation.js';
import { upsertEntity, type Entity, type EntityInput } from '../domain/entities.js';
import type { FactIndex } from '../domain/fact-index.js';
import { applyInvalidation, planAssertion, retractFact, type Fact, type FactAssertion } from '../domain/facts.js';
import { retractRelationship, upsertRelationship, type Relationship, type RelationshipInput } from '../domain/relationships.js';
import { ownerFields, type Scope } from '../domain/scope.js';
import { invalidInput, notFound } from '../errors.js';
import type { GraphStore } from '../store/graph.js';
import type { Store } from '../store/lmdb.js';
import { Mailbox, settled } from './mailbox.js';
import { OwnerFacts, type FactPlanningView } from './owner-facts.js';

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
 * One owner's single writer. Entity and relationship commands decide inside the LMDB write transaction
 * (so they see every earlier write of this owner); fact commands decide on the owner's in-memory fact
 * index (src/actors/owner-facts.ts). Either throws before its first put when the input is refused.
 */
export class OwnerActor {
  private readonly mailbox = new Mailbox();
  private loadedFacts: OwnerFacts | undefined;
  private lastGraphWrite: Promise<void> = Promise.resolve();
  private lastFactWrite: Promise<void> = Promise.resolve();
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
      () => {
        const committed = this.deps.store.transaction(() => decideAndWrite(this.deps.clock.now()));
        this.lastGraphWrite = settled(committed);
        return committed;
      },
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
    return this.writeFacts((now, facts) => {
      this.requireSubject(command.subject_type, command.subject_id);
      let explicitTarget: Fact | null = null;
      if (command.supersedes_fact_id !== undefined) {
        explicitTarget = facts.get(command.supersedes_fact_id) ?? null;
        if (!explicitTarget || explicitTarget.invalid_from !== null) {
          throw invalidInput(`supersedes_fact_id ${command.supersedes_fact_id} does not name an active fact in this scope`);
        }
      }
      const incoming: FactAssertion = {
        fact_id: command.fact_id,
        entity_id: this.scope.entityId,
        partition: this.scope.partition,
        subject_type: command.subject_type,
        subject_id: command.subject_id,
        predicate: command.predicate,
        value: command.value,
        cardinality: command.cardinality,
        valid_from: command.valid_from,
        observed_at: command.observed_at ?? now,
      };
      const chain = facts.neighbourhood(incoming.subject_type, incoming.subject_id, incoming.predicate, incoming.observed_at);
      const plan = planAssertion({ chain, explicitTarget, incoming, now });
      const writes: Fact[] = [];
      for (const { fact_id, invalid_from } of plan.invalidations) {
        const stored = chain.find((f) => f.fact_id === fact_id) ?? explicitTarget;
        if (stored) writes.push(applyInvalidation(stored, invalid_from, now));
      }
      writes.push(plan.fact);
      return { writes, result: plan.fact };
    });
  }

  retractFact(id: string): Promise<Fact> {
    return this.writeFacts((now, facts) => {
      const fact = facts.get(id);
      if (!fact) throw notFound(`fact ${id}`);
      const retracted = retractFact(fact, now);
      return { writes: retracted === fact ? [] : [retracted], result: retracted };
    });
  }

  /**
   * Retracts the scope's redundant facts (src/domain/consolidation.ts). Planned and written as one
   * command of this owner's queue (its puts commit together), so no assertion can slip between the plan
   * and the retractions.
   */
  consolidate(): Promise<ConsolidationReport> {
    return this.writeFacts((now, facts) => {
      const { graph } = this.deps;
      const active = facts.activeFacts();
      const activeRelationshipIds = new Set<string>();
      for (const f of active) {
        const id = f.subject_type === 'relationship' ? f.subject_id : null;
        if (id !== null && graph.getRelationship(this.scope, id)?.invalid_from === null) activeRelationshipIds.add(id);
      }
      const plan = planConsolidation({ facts: active, activeRelationshipIds });
      return { writes: plan.retract.map(({ fact }) => retractFact(fact, now)), result: plan.report };
    });
  }

  /** The owner's committed facts, as readers may see them (loaded from LMDB on first use). */
  facts(): FactIndex {
    return this.ownerFacts().committed;
  }

  /** How many facts this actor holds in memory (the registry's budget counts them). */
  get weight(): number {
    return this.loadedFacts?.committed.size ?? 0;
  }

  /**
   * A fact command: `decide` runs in this owner's order against the owner's facts including earlier
   * commands still in flight, and returns the fact versions to store. They are written as plain puts,
   * issued together so they commit in one LMDB transaction, without holding the write transaction open
   * for a callback. Readers see them once they have committed, not before.
   */
  private writeFacts<T>(decide: (now: number, facts: FactPlanningView) => { writes: Fact[]; result: T }): Promise<T> {
    return this.mailbox.submit(
      // Facts check entities and relationships in the committed snapshot: let this owner's earlier
      // entity and relationship writes commit first, so queue order still means what it says.
      () => this.lastGraphWrite,
      () => {
        const owner = this.ownerFacts();
        const { writes, result } = decide(this.deps.clock.now(), owner.view);
        // Nothing to write (a repeated retraction): the answer may rest on writes still in flight, so it
        // waits for them; an acknowledgement never describes a state that could still be lost.
        if (writes.length === 0) return this.lastFactWrite.then(() => result);
        const committed = Promise.all(writes.map((fact) => this.deps.graph.putFact(this.scope, fact)));
        this.lastFactWrite = settled(committed);
        const seq = owner.stage(writes);
        return committed.then(
          () => {
            owner.settle(seq);
            return result;
          },
          (error: unknown) => {
            owner.discard(seq);
            throw error;
          },
        );
      },
    );
  }

  private ownerFacts(): OwnerFacts {
    this.loadedFacts ??= new OwnerFacts(this.deps.graph.loadFacts(this.scope));
    return this.loadedFacts;
  }

  private requireSubject(type: Fact['subject_type'], id: string | null): void {
    const { graph } = this.deps;
    if (type === 'entity' && !graph.getEntity(this.scope, id ?? '')) throw notFound(`memory entity ${id}`);
    if (type === 'relationship' && !graph.getRelationship(this.scope, id ?? '')) throw notFound(`relationship ${id}`);
  }
}
