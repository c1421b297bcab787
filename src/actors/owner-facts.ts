import { planConsolidation, type ConsolidationReport } from '../domain/consolidation.js';
import type { FactIndex } from '../domain/fact-index.js';
import { applyInvalidation, planAssertion, retractFact, type Fact, type FactAssertion, type FactKey } from '../domain/facts.js';
import type { Scope } from '../domain/scope.js';
import { invalidInput, notFound } from '../errors.js';
import type { FactVersion, GraphStore } from '../store/graph.js';
import { FactOverlay } from './fact-overlay.js';
import { settled } from './mailbox.js';

/** What a caller asserts, before the actor stamps it. */
export type FactCommand = Omit<FactAssertion, 'observed_at' | 'entity_id' | 'partition'> & {
  observed_at?: number | undefined;
  supersedes_fact_id?: string | undefined;
};

/** A fact command's decision: the fact versions to store, and what the caller is answered. */
export interface FactChange<T> {
  writes: Fact[];
  /** The one of `writes` that is a new fact (an assertion's), stored whole; the others are later versions of stored facts. */
  created: Fact | null;
  result: T;
}

/**
 * Bytes one active fact holds in memory: its record ~420 and its place in the owner's FactIndex ~120,
 * measured with 100,000 facts (README, Performance). The residency budget counts active facts at this price.
 */
export const FACT_BYTES = 540;

/**
 * Bytes a fact that is no longer active holds (superseded, retracted): its key and state in the FactIndex,
 * which reads the rest back from LMDB when a listing returns it. Measured with 100,000 facts: 269 bytes
 * against 471 for an active fact in the same measurement; priced here in FACT_BYTES' proportion.
 */
export const INACTIVE_FACT_BYTES = 310;

/**
 * The facts part of an owner's actor. It holds the owner's facts in memory (loaded from LMDB on first
 * use, dropped when the actor is evicted) and owns their write protocol: a command decides on the
 * planning view, which includes the owner's earlier commands still in flight, and its fact versions are
 * written as plain puts, staged in the overlay until they commit, so readers never see a write that
 * could still be lost. A command built on earlier ones still in flight stands only if they commit.
 * The actor decides when a command runs (src/actors/owner-actor.ts).
 */
export class OwnerFacts {
  private loaded: FactOverlay | undefined;
  private lastApplied: Promise<void> = Promise.resolve();
  /** How each staged batch still in flight ends: null once stored, its error when the commit failed (made on first use). */
  private outcomes: Map<number, Promise<{ error: unknown } | null>> | undefined;

  constructor(
    private readonly scope: Scope,
    private readonly graph: GraphStore,
    /** Told whenever the bytes held change (the registry's budget re-charges the actor). */
    private readonly resized: () => void,
  ) {}

  /** The committed facts, as readers may see them. */
  get committed(): FactIndex {
    return this.overlay().committed;
  }

  get residentBytes(): number {
    const index = this.loaded?.committed;
    return index ? index.activeCount * FACT_BYTES + (index.size - index.activeCount) * INACTIVE_FACT_BYTES : 0;
  }

  /** Plans an assertion on the owner's facts, committed or in flight; throws before any write when refused. */
  assertion(command: FactCommand, now: number): FactChange<Fact> {
    const facts = this.overlay().plan();
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
    // A multi-valued assertion closes nothing of its chain (planAssertion reads none of it), so it reads none,
    // and builds on no write in flight there: a batch of a thousand values of one predicate stays linear.
    const chain = incoming.cardinality === 'single' ? facts.neighbourhood(incoming.subject_type, incoming.subject_id, incoming.predicate, incoming.observed_at) : [];
    const plan = planAssertion({ chain, explicitTarget, incoming, now });
    const writes: Fact[] = [];
    for (const { fact_id, invalid_from } of plan.invalidations) {
      // Whole, through the planning view: the chain may hold an inactive fact as its key and state only.
      const stored = facts.get(fact_id);
      if (stored) writes.push(applyInvalidation(stored, invalid_from, now));
    }
    writes.push(plan.fact);
    return { writes, created: plan.fact, result: plan.fact };
  }

  retraction(id: string, now: number): FactChange<Fact> {
    const fact = this.overlay().plan().get(id);
    if (!fact) throw notFound(`fact ${id}`);
    const retracted = retractFact(fact, now);
    return { writes: retracted === fact ? [] : [retracted], created: null, result: retracted };
  }

  /** Retracts the redundant facts (src/domain/consolidation.ts); `isActiveRelationship` reads the graph. */
  consolidation(now: number, isActiveRelationship: (id: string) => boolean): FactChange<ConsolidationReport> {
    const active = this.overlay().plan().activeFacts();
    const activeRelationshipIds = new Set<string>();
    for (const f of active) {
      const id = f.subject_type === 'relationship' ? f.subject_id : null;
      if (id !== null && isActiveRelationship(id)) activeRelationshipIds.add(id);
    }
    const plan = planConsolidation({ facts: active, activeRelationshipIds });
    return { writes: plan.retract.map(({ fact }) => retractFact(fact, now)), created: null, result: plan.report };
  }

  /**
   * Writes a command's fact versions: plain puts issued together, so they commit in one LMDB transaction
   * without holding the write transaction open for a callback. Later commands plan on them at once;
   * readers see them once they have committed. Rejects (and forgets them) when the commit fails.
   *
   * A command whose plan was shown writes still in flight (superseding a fact asserted a moment ago,
   * retracting one just retracted) is built on them: its puts wait until they are stored, and it fails
   * with their error when they are not, so nothing ever stores or acknowledges a consequence of a write
   * the disk refused. Commands on other facts go on sharing commits.
   */
  write({ writes, created }: FactChange<unknown>, alongside?: () => void): Promise<void> {
    const overlay = this.overlay();
    const premises = this.stored(overlay.premises());
    // Nothing to write: answered once every write in flight has reached the index, as the answer may describe it.
    const appliedSoFar = this.lastApplied;
    if (writes.length === 0) return premises ? premises.then(() => appliedSoFar) : appliedSoFar;
    const seq = overlay.stage(writes);
    const version = (fact: Fact): FactVersion => (fact === created ? 'new' : 'later');
    // With writes to commit alongside (a kept answer), one transaction holds both; else plain puts, cheaper.
    const put: () => Promise<unknown> = alongside
      ? () => this.graph.putFactsAlong(this.scope, writes.map((fact) => ({ fact, version: version(fact) })), alongside)
      : () => Promise.all(writes.map((fact) => (version(fact) === 'new' ? this.graph.putFact(this.scope, fact) : this.graph.putFactState(this.scope, fact))));
    const committed = premises ? premises.then(put) : put();
    // Commits are applied to the index in command order, and a command is answered once its own are:
    // lmdb-js may resolve a later batch's puts before an earlier one's when many are queued (measured:
    // 3,000 puts issued at once resolve the second batch first), and settling a newer version of a fact
    // before an older one would leave the older one in memory while LMDB holds the newer.
    // The outcome is taken at once: a commit failing while earlier commands are still being applied
    // would otherwise be a rejection nobody handles yet, which ends the process.
    const outcome = committed.then(() => null, (error: unknown) => ({ error }));
    const outcomes = (this.outcomes ??= new Map());
    outcomes.set(seq, outcome);
    const applied = this.lastApplied.then(async () => {
      const failed = await outcome;
      outcomes.delete(seq);
      if (outcomes.size === 0 && this.outcomes === outcomes) this.outcomes = undefined;
      if (failed) {
        overlay.discard(seq);
        throw failed.error;
      }
      overlay.settle(seq);
      this.resized();
    });
    this.lastApplied = settled(applied);
    return applied;
  }

  /**
   * A batch of memory operations (src/actors/owner-batch.ts), while it decides: stages a command's fact
   * versions so that the batch's later operations plan on them, without writing them. Returns the ticket
   * `settleWithin` (after the commit) or `discardWithin` (refused, or the commit failed) takes. The batch
   * runs with no fact write of the owner in flight (src/actors/owner-actor.ts), so it builds on no premise.
   */
  stagePlanned(writes: Fact[]): number {
    return this.overlay().stage(writes);
  }

  /**
   * Inside the owner's write transaction, once the batch has decided everything: puts the last version of
   * each fact its commands changed. They all commit together, so the versions before it would never be
   * read: a fact the batch asserted and then superseded (a batch asserting a predicate five times
   * supersedes four of its own facts) is stored once, whole, as it ends the batch, like a fact an import
   * restores (src/store/graph.ts), rather than as its first version and then a state record.
   */
  putWithin(changes: ReadonlyArray<FactChange<unknown>>): void {
    for (const { fact, version } of lastVersions(changes)) this.graph.putFactWithin(this.scope, fact, version);
  }

  /** The batch's transaction committed: readers see its fact versions (the last of each fact). */
  settleWithin(seqs: readonly number[]): void {
    if (seqs.length === 0) return;
    this.overlay().settleAll(seqs);
    this.resized();
  }

  /** The batch's transaction failed or was undone: its fact versions never happened. */
  discardWithin(seqs: readonly number[]): void {
    const overlay = this.overlay();
    for (const seq of seqs) overlay.discard(seq);
  }

  /** Resolves once the staged batches `seqs` are stored, rejects with the error of one that failed; null for none. */
  private stored(seqs: number[]): Promise<void> | null {
    if (seqs.length === 0) return null;
    return Promise.all(seqs.map((seq) => this.outcomes?.get(seq))).then((outcomes) => {
      const failed = outcomes.find((outcome) => outcome);
      if (failed) throw failed.error;
    });
  }

  /**
   * Resolves once every fact write issued so far has committed or failed and reached the index: from then
   * on, with no command staging meanwhile, `committed` is exactly what LMDB holds.
   */
  writesApplied(): Promise<void> {
    return this.lastApplied;
  }

  /** Takes facts whose records were erased (committed) out of the index readers see. */
  forget(facts: readonly FactKey[]): void {
    if (facts.length === 0) return;
    this.overlay().forget(facts.map((f) => f.fact_id));
    this.resized();
  }

  /** Drops the facts held in memory (the actor was evicted while idle); they are reloaded on next use. */
  unload(): void {
    this.loaded = undefined;
  }

  private overlay(): FactOverlay {
    if (this.loaded) return this.loaded;
    this.loaded = new FactOverlay(this.graph.loadFacts(this.scope), (id) => this.graph.factContent(this.scope, id));
    this.resized();
    return this.loaded;
  }
}

/**
 * The last version of each fact that commands write together, in the order the facts were first written:
 * `new` when one of the commands created the fact (its record is then stored whole, in that last version).
 */
function lastVersions(changes: ReadonlyArray<FactChange<unknown>>): Iterable<{ fact: Fact; version: FactVersion }> {
  const last = new Map<string, { fact: Fact; version: FactVersion }>();
  for (const { writes, created } of changes) {
    for (const fact of writes) {
      const earlier = last.get(fact.fact_id);
      if (earlier) earlier.fact = fact;
      else last.set(fact.fact_id, { fact, version: fact === created ? 'new' : 'later' });
    }
  }
  return last.values();
}
