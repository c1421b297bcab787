import type { Clock } from '../clock.js';
import type { ConsolidationReport } from '../domain/consolidation.js';
import type { Entity, EntityInput } from '../domain/entities.js';
import { erasedCounts, type ErasedCounts } from '../domain/entity-erasure.js';
import type { FactIndex } from '../domain/fact-index.js';
import type { Fact } from '../domain/facts.js';
import type { Relationship, RelationshipInput } from '../domain/relationships.js';
import type { Scope } from '../domain/scope.js';
import type { GraphStore } from '../store/graph.js';
import type { Store } from '../store/lmdb.js';
import { ReembedRecords } from '../store/reembed.js';
import { scopeMoving } from '../placement/scope-transfers.js';
import { Mailbox, settled } from './mailbox.js';
import { applyOperations, type BatchOperation, type BatchResult } from './owner-batch.js';
import { OwnerDocuments, type DocumentWrites, type OwnerDocumentsDeps } from './owner-documents.js';
import { OwnerReembed } from './owner-reembed.js';
import { OwnerFacts, type FactChange, type FactCommand } from './owner-facts.js';
import { OwnerImport } from './owner-import.js';
import { OwnerGraph } from './owner-graph.js';

export type { FactCommand } from './owner-facts.js';
export type { BatchOperation, BatchResult } from './owner-batch.js';

export interface OwnerActorDeps {
  store: Store;
  graph: GraphStore;
  clock: Clock;
  documents: OwnerDocumentsDeps;
  /**
   * Whether the owner's scope is frozen for a move (src/placement/node-placement.ts): its writes are then
   * refused when their turn comes, so a write that passed the HTTP check before the freeze cannot land
   * after the move copied the owner.
   */
  frozen?: (scope: Scope) => boolean;
}

/**
 * Bytes of an actor holding nothing (the actor, its mailbox, its parts, its registry entry and idle
 * timer; measured over 20,000 empty actors): what the budget charges an owner before it loads anything.
 */
export const ACTOR_BYTES = 2200;

/**
 * One owner's single writer, made of its parts: the graph (entities and relationships), its facts, and
 * its documents with their vector index. Each part owns how it writes; the actor only sequences them
 * through its mailbox:
 * - graph and document writes decide and write inside one LMDB write transaction, in queue order;
 * - fact commands decide on the owner's facts in memory (their own earlier commands included) and are
 *   written as plain puts; they wait for the owner's earlier transactions to commit first, because they
 *   check entities and relationships in the committed snapshot;
 * - a fact command built on the owner's fact writes still in flight (even one that writes nothing) stands
 *   only once they have committed, and fails with them (src/actors/owner-facts.ts);
 * - forgetting an entity first waits for the owner's fact writes in flight, then erases records of both
 *   parts in one write transaction, and takes the erased facts out of memory once it has committed.
 * Reads (fact lists, document searches) use the parts directly, never the mailbox.
 */
export class OwnerActor {
  private readonly mailbox = new Mailbox();
  /** The last write transaction while it is in flight: fact commands wait for it (undefined once settled). */
  private lastTransaction: Promise<void> | undefined;
  private readonly graph: OwnerGraph;
  private readonly factsPart: OwnerFacts;
  private readonly writes: DocumentWrites;
  private reembedPart: OwnerReembed | undefined;
  private importPart: OwnerImport | undefined;
  private nameIndexing: Promise<void> | undefined;
  readonly documents: OwnerDocuments;

  /** `resized` is told whenever the bytes the actor holds change (the registry re-charges it). */
  constructor(
    readonly scope: Scope,
    private readonly deps: OwnerActorDeps,
    resized: () => void = () => undefined,
  ) {
    this.graph = new OwnerGraph(scope, deps.graph);
    this.factsPart = new OwnerFacts(scope, deps.graph, resized);
    this.writes = { transaction: (decide) => this.transaction(decide), hold: (work) => this.mailbox.hold(work) };
    this.documents = new OwnerDocuments(scope, this.writes, deps.documents, resized);
  }

  /**
   * The owner's re-embedding steps (made on first use: most owners never need them). Their pages are
   * transactions of this owner's queue, like its document writes.
   */
  get reembedding(): OwnerReembed {
    const { documents } = this.deps;
    this.reembedPart ??= new OwnerReembed(this.scope, this.writes, {
      records: new ReembedRecords(this.deps.store),
      embedder: documents.embedder,
      origin: documents.indexes.origin,
      reloadIndex: () => this.documents.reloadIndexes(),
    });
    return this.reembedPart;
  }

  /** The owner's import steps (made on first use); their batches are transactions of this owner's queue. */
  get importing(): OwnerImport {
    const { graph, documents } = this.deps;
    this.importPart ??= new OwnerImport(this.scope, this.writes, { graph, docs: documents.docs, embedder: documents.embedder }, () => this.unload());
    return this.importPart;
  }

  /** Whether any command (or document work) of this owner is in flight. */
  get busy(): boolean {
    return this.mailbox.busy;
  }

  /** Resolves once nothing of this owner is in flight. */
  idle(): Promise<void> {
    return this.mailbox.idle();
  }

  /** Bytes of owner state held in memory: what the registry's residency budget counts. */
  get weight(): number {
    return ACTOR_BYTES + this.factsPart.residentBytes + this.documents.residentBytes;
  }

  upsertEntity(input: EntityInput): Promise<Entity> {
    return this.transaction((now) => this.graph.upsertEntity(input, now));
  }

  upsertRelationship(input: RelationshipInput): Promise<Relationship> {
    return this.transaction((now) => this.graph.upsertRelationship(input, now));
  }

  retractRelationship(id: string): Promise<Relationship> {
    return this.transaction((now) => this.graph.retractRelationship(id, now));
  }

  /**
   * Erases a node and everything that hangs on it (src/domain/entity-erasure.ts) in one LMDB transaction:
   * all of it or, when the commit fails, nothing (the facts in memory then stay as they are, like LMDB).
   * It decides on the facts LMDB holds: it waits until the fact writes in flight have settled, and the
   * fact commands after it wait for its commit (as after any transaction), so none plans on an erased
   * fact, or on a subject that is gone. Not found when the node does not exist in the scope.
   */
  forgetEntity(id: string): Promise<ErasedCounts> {
    const erased = this.transaction(
      () => this.graph.forgetEntity(id, (type, subject) => this.factsPart.committed.keysAbout(type, subject)),
      // Loads the owner's facts (when they are not in memory) outside the write transaction.
      () => this.factsPart.writesApplied().then(() => void this.factsPart.committed),
      (erasure) => this.factsPart.forget(erasure.facts),
    );
    return erased.then(erasedCounts);
  }

  /**
   * Builds the name index of an owner whose entities were written before it existed (src/store/entity-names.ts):
   * a page of nodes per transaction of this owner's queue, re-read inside it, then the marker. Writes
   * between pages keep their own entries, so the index is exact when the marker commits. Concurrent
   * callers share one build.
   */
  indexEntityNames(): Promise<void> {
    this.nameIndexing ??= (async () => {
      for await (const page of this.deps.graph.entityPages(this.scope)) {
        const ids = page.map((e) => e.memory_entity_id);
        await this.transaction(() => this.graph.indexNames(ids));
      }
      await this.transaction(() => this.graph.markNamesIndexed());
    })().finally(() => {
      this.nameIndexing = undefined;
    });
    return this.nameIndexing;
  }

  /**
   * Applies a batch of memory operations in order, all or nothing, in one LMDB transaction
   * (src/actors/owner-batch.ts: every operation decided before the first put): an operation refused, or a
   * commit refused, leaves nothing of the batch, in LMDB or in memory. Like forgetting, it waits for the owner's fact writes in flight, so it plans on
   * what LMDB holds and builds on no premise; the fact commands after it wait for its commit. `alongside`,
   * when given, is shown the results decided and returns writes that commit in the same transaction.
   */
  applyBatch(operations: readonly BatchOperation[], alongside?: (results: BatchResult[]) => () => void): Promise<BatchResult[]> {
    const staged: number[] = [];
    return this.submit(
      () => this.factsPart.writesApplied().then(() => void this.factsPart.committed),
      () => {
        const parts = { scope: this.scope, graph: this.deps.graph, facts: this.factsPart };
        const done = this.deps.store.transaction(() => applyOperations(operations, this.deps.clock.now(), parts, staged, alongside)).then(
          (results) => {
            this.factsPart.settleWithin(staged);
            return results;
          },
          (error: unknown) => {
            this.factsPart.discardWithin(staged);
            throw error;
          },
        );
        this.followTransaction(done);
        return done;
      },
    );
  }

  /**
   * Asserts a fact. `alongside`, when given, is shown the fact decided and returns writes that commit in the
   * same transaction as the fact's (the answer kept for an `Idempotency-Key`).
   */
  assertFact(command: FactCommand, alongside?: (fact: Fact) => () => void): Promise<Fact> {
    return this.factCommand((now) => {
      this.graph.requireSubject(command.subject_type, command.subject_id);
      return this.factsPart.assertion(command, now);
    }, alongside);
  }

  retractFact(id: string): Promise<Fact> {
    return this.factCommand((now) => this.factsPart.retraction(id, now));
  }

  /**
   * Retracts the scope's redundant facts (src/domain/consolidation.ts). Planned and written as one
   * command of this owner's queue (its puts commit together), so no assertion can slip between the plan
   * and the retractions.
   */
  consolidate(): Promise<ConsolidationReport> {
    return this.factCommand((now) => this.factsPart.consolidation(now, (id) => this.graph.isActiveRelationship(id)));
  }

  /** The owner's committed facts, as readers may see them (loaded from LMDB on first use). */
  facts(): FactIndex {
    return this.factsPart.committed;
  }

  /**
   * Drops the owner's state held in memory: its facts, and its vector index, closed and written back.
   * The registry calls it once the actor is evicted and idle; a later use reloads from LMDB.
   */
  unload(): Promise<void> {
    this.factsPart.unload();
    return this.documents.unload();
  }

  /** Drops the owner's state held in memory without writing anything back: the owner is being erased. */
  discard(): Promise<void> {
    this.factsPart.unload();
    return this.documents.unload(false);
  }

  /**
   * Runs `decide` in this owner's order inside one write transaction, with the commit instant, after
   * `prepare`; `afterCommit` updates what the owner holds in memory before the next fact command plans.
   */
  private transaction<T>(
    decide: (now: number) => T,
    prepare: () => Promise<void> | void = () => undefined,
    afterCommit: (decided: T) => void = () => undefined,
  ): Promise<T> {
    return this.submit(prepare, () => {
      const committed = this.deps.store.transaction(() => decide(this.deps.clock.now())).then((decided) => {
        afterCommit(decided);
        return decided;
      });
      this.followTransaction(committed);
      return committed;
    });
  }

  private followTransaction(committed: Promise<unknown>): void {
    const last = settled(committed);
    this.lastTransaction = last;
    void last.then(() => {
      if (this.lastTransaction === last) this.lastTransaction = undefined;
    });
  }

  /**
   * Queues a write in this owner's order, after the owner's data key exists: a new owner's key is
   * allocated and synced before its first write (src/store/owner-keys.ts, `prepare`), not inside the write.
   */
  private submit<P, T>(prepare: () => Promise<P> | P, apply: (prepared: P) => Promise<T>): Promise<T> {
    const { tenant, partition, entityId } = this.scope;
    return this.mailbox.submit(() => {
      const keyed = this.deps.store.keys.prepare([tenant, partition ?? '', entityId]);
      return keyed ? keyed.then(prepare) : prepare();
    }, (prepared) => {
      if (this.deps.frozen?.(this.scope)) throw scopeMoving();
      return apply(prepared);
    });
  }

  /** Runs a fact command in this owner's order; the facts part writes what it decided (see the class comment). */
  private factCommand<T>(decide: (now: number) => FactChange<T>, alongside?: (result: T) => () => void): Promise<T> {
    return this.submit(
      () => this.lastTransaction,
      () => {
        const change = decide(this.deps.clock.now());
        // Also with nothing to write (a repeated retraction): the answer may rest on writes still in
        // flight, and an acknowledgement never describes a state that could still be lost.
        return this.factsPart.write(change, alongside?.(change.result)).then(() => change.result);
      },
    );
  }
}
