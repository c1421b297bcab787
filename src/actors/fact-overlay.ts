import { chainKey, FactIndex, NEIGHBOURS_BEFORE, type RestoreFact } from '../domain/fact-index.js';
import { byObservedDesc, type Fact, type FactVersionState, type SubjectType } from '../domain/facts.js';

/** What a fact command decides from: the owner's facts including its own queued, not yet committed writes. */
export interface FactPlanningView {
  get(id: string): Fact | undefined;
  /** The chain's facts an assertion at `at` can affect (FactIndex.neighbourhood), staged versions first. */
  neighbourhood(subjectType: SubjectType, subjectId: string | null, predicate: string, at: number): FactVersionState[];
  activeFacts(): Fact[];
}

/**
 * One owner's facts in memory: `committed` is what readers see (exactly what LMDB has acknowledged);
 * writes staged by commands whose transaction has not committed yet form an overlay that only later
 * commands of the same owner plan on. So an owner's writes still share commits with each other (the
 * mailbox does not wait for a commit), and no reader ever sees a write that could still be lost.
 */
export class FactOverlay {
  readonly committed: FactIndex;
  /**
   * The writes in flight: made by the first one staged, dropped once none is left. Most resident owners have
   * none in flight, and three maps each were ~0.5 KB of heap per resident owner (issue 16).
   */
  private flight: InFlight | null = null;
  private nextSeq = 0;
  /** Staged batches the planning view has shown since `plan()`: what the command being planned builds on (made on first use). */
  private shown: Set<number> | null = null;
  /**
   * Chains in flight the planning view has shown since `plan()`: the command builds on every batch that staged
   * facts in them, returned or not (a retraction in flight closed a fact the view then leaves out). Their
   * batches are collected only when `premises()` asks; a batch of memory operations never does, so its
   * thousandth assertion of one predicate does not walk the 999 staged before it.
   */
  private readonly shownChains: ChainInFlight[] = [];

  /** `restore` reads a stored fact's content back, for the versions the index keeps without it (FactIndex). */
  constructor(stored: Iterable<Fact>, restore?: RestoreFact) {
    this.committed = new FactIndex(stored, restore);
  }

  /** The planning view, for one command: `premises()` then says which batches in flight it was shown. */
  plan(): FactPlanningView {
    this.shown = null;
    this.shownChains.length = 0;
    return this.view;
  }

  /** The staged batches (tickets) the command planned since `plan()` was shown; it stands only if they commit. */
  premises(): number[] {
    if (this.shownChains.length === 0) return this.shown ? [...this.shown] : [];
    const seqs = new Set(this.shown);
    const pending = this.flight?.pending;
    if (pending) for (const chain of this.shownChains) for (const id of chain.ids) seqs.add(pending.get(id)!.seq);
    return [...seqs];
  }

  /** Records a command's writes as in flight; returns the ticket `settle` or `discard` takes. */
  stage(writes: Fact[]): number {
    const seq = this.nextSeq++;
    const flight = (this.flight ??= { pending: new Map(), byChain: new Map(), staged: new Map() });
    flight.staged.set(seq, writes);
    for (const fact of writes) {
      const key = chainKey(fact.subject_type, fact.subject_id, fact.predicate);
      let chain = flight.byChain.get(key);
      if (!chain) flight.byChain.set(key, (chain = { key, ids: new Set(), active: new Set(), ordered: [] }));
      flight.pending.set(fact.fact_id, { fact, seq, chain });
      if (!chain.ids.has(fact.fact_id)) {
        chain.ids.add(fact.fact_id);
        insertOrdered(chain.ordered, fact);
      }
      if (fact.invalid_from === null) chain.active.add(fact.fact_id);
      else chain.active.delete(fact.fact_id);
    }
    return seq;
  }

  /** The writes of `seq` committed: readers see them now. */
  settle(seq: number): void {
    for (const fact of this.take(seq)) this.committed.upsert(fact);
  }

  /**
   * The writes of `seqs` committed together (one transaction): readers see them now. Only the last version
   * of each fact reaches the committed index: the ones before it are replaced in the same instant.
   */
  settleAll(seqs: readonly number[]): void {
    const flight = this.flight;
    if (flight && seqs.length === flight.staged.size && seqs.every((seq) => flight.staged.has(seq))) {
      // Nothing else is in flight (a batch's case): the newest staged version of each fact is its last one.
      this.committed.upsertAll(Array.from(flight.pending.values(), ({ fact }) => fact));
      this.flight = null;
      return;
    }
    const last = new Map<string, Fact>();
    for (const seq of seqs) for (const fact of this.take(seq)) last.set(fact.fact_id, fact);
    this.committed.upsertAll(last.values());
  }

  /** The writes of `seq` failed to commit: they never happened. */
  discard(seq: number): void {
    this.take(seq);
  }

  /**
   * Facts whose records were erased in a commit: readers no longer see them. The erasure runs with no
   * write in flight (src/actors/owner-actor.ts), so no staged version of them remains to plan on.
   */
  forget(ids: readonly string[]): void {
    this.committed.remove(ids);
  }

  readonly view: FactPlanningView = {
    get: (id) => {
      const staged = this.flight?.pending.get(id);
      if (!staged) return this.committed.get(id);
      (this.shown ??= new Set()).add(staged.seq);
      return staged.fact;
    },
    neighbourhood: (subjectType, subjectId, predicate, at) => {
      const key = chainKey(subjectType, subjectId, predicate);
      const flight = this.flight;
      const staged = flight?.byChain.get(key);
      if (!flight || !staged) return this.committed.neighbourhoodOf(key, at);
      this.shownChains.push(staged);
      // In order (the common assertion, and every one of a history imported in order): nothing of the chain,
      // committed or staged, is observed after `at`, so what the assertion can affect is the chain's active
      // facts, as in FactIndex.neighbourhood. The staged facts closed meanwhile are not read: a batch asserting
      // one predicate a thousand times reads one or two facts per assertion, not every one staged before it.
      const later = firstOrderedAfter(staged.ordered, at);
      const inOrder = later === staged.ordered.length ? this.committed.activeInOrder(key, at) : null;
      if (inOrder) return this.withStaged(inOrder, staged, inFlightFacts(flight, staged.active));
      // Out of order: as FactIndex.neighbourhood reads a chain, over the committed facts and the staged ones.
      const laterInFlight = later < staged.ordered.length;
      const near = new Set(staged.active);
      const laterAt = staged.ordered[later]?.observed_at;
      for (let i = later; i < staged.ordered.length && staged.ordered[i]!.observed_at === laterAt; i++) near.add(staged.ordered[i]!.fact_id);
      // Some of the chain is observed after `at` (staged, or committed since `inOrder` is null): the few before it too.
      for (let i = later - 1; i >= Math.max(0, later - NEIGHBOURS_BEFORE); i--) near.add(staged.ordered[i]!.fact_id);
      return this.withStaged(this.committed.neighbourhoodOf(key, at, laterInFlight), staged, inFlightFacts(flight, near));
    },
    activeFacts: () => {
      const pending = this.flight?.pending;
      if (!pending || pending.size === 0) return this.committed.activeFacts();
      const found = new Map<string, Fact>();
      for (const f of this.committed.activeFacts()) found.set(f.fact_id, f);
      for (const { fact, seq } of pending.values()) {
        found.set(fact.fact_id, fact);
        (this.shown ??= new Set()).add(seq);
      }
      return [...found.values()].filter((f) => f.invalid_from === null).sort(byObservedDesc);
    },
  };

  /**
   * The committed facts `found` of a chain in flight, each in its staged version when it has one, then the
   * staged facts `inFlight` not among them. A staged fact is among them exactly when it replaced one (the same
   * object as in `inFlight`): no lookup in the owner's whole index (with a batch in flight, one per staged fact
   * of the chain, each a few cache misses in a large map), and no set made for the usual single replacement
   * (a single-valued predicate's).
   */
  private withStaged(found: FactVersionState[], staged: ChainInFlight, inFlight: Fact[]): FactVersionState[] {
    const pending = this.flight!.pending;
    let replaced: Fact | undefined;
    let replacedMore: Set<Fact> | undefined;
    for (let i = 0; i < found.length; i++) {
      const id = found[i]!.fact_id;
      if (!staged.ids.has(id)) continue;
      const version = pending.get(id)!.fact;
      found[i] = version;
      if (replaced === undefined) replaced = version;
      else (replacedMore ??= new Set([replaced])).add(version);
    }
    for (const f of inFlight) if (f !== replaced && !replacedMore?.has(f)) found.push(f);
    return found;
  }

  private take(seq: number): Fact[] {
    const flight = this.flight;
    if (!flight) return [];
    const writes = flight.staged.get(seq) ?? [];
    flight.staged.delete(seq);
    for (const fact of writes) {
      const staged = flight.pending.get(fact.fact_id);
      if (staged?.seq !== seq) continue;
      flight.pending.delete(fact.fact_id);
      const { chain } = staged;
      chain.ids.delete(fact.fact_id);
      chain.active.delete(fact.fact_id);
      removeOrdered(chain.ordered, fact);
      if (chain.ids.size === 0) flight.byChain.delete(chain.key);
    }
    // Every pending version belongs to a staged batch: with none left, nothing is in flight.
    if (flight.staged.size === 0) this.flight = null;
    return writes;
  }
}

interface InFlight {
  /** Newest staged version of each fact with writes in flight, the batch that staged it, and its chain. */
  pending: Map<string, { fact: Fact; seq: number; chain: ChainInFlight }>;
  /** The facts in `pending` by subject-and-predicate chain: an assertion looks at its own chain's only (a batch stages hundreds). */
  byChain: Map<string, ChainInFlight>;
  staged: Map<number, Fact[]>;
}

/** One subject-and-predicate chain's facts in flight. */
interface ChainInFlight {
  readonly key: string;
  /** Every fact of the chain in `pending`. */
  readonly ids: Set<string>;
  /** Those whose newest staged version is active. */
  readonly active: Set<string>;
  /** Every fact of the chain in `pending` (a version of it: its key never changes), by (`observed_at`, id). */
  readonly ordered: FactVersionState[];
}

/** The first position in `ordered` of a fact observed after `at` (facts mostly arrive in order: usually the end). */
function firstOrderedAfter(ordered: readonly FactVersionState[], at: number): number {
  if ((ordered.at(-1)?.observed_at ?? -Infinity) <= at) return ordered.length;
  return lowerBound(ordered, at + 1, '');
}

function insertOrdered(ordered: FactVersionState[], fact: FactVersionState): void {
  const last = ordered.at(-1);
  if (!last || last.observed_at < fact.observed_at || (last.observed_at === fact.observed_at && last.fact_id < fact.fact_id)) ordered.push(fact);
  else ordered.splice(lowerBound(ordered, fact.observed_at, fact.fact_id), 0, fact);
}

function removeOrdered(ordered: FactVersionState[], fact: FactVersionState): void {
  const i = lowerBound(ordered, fact.observed_at, fact.fact_id);
  if (ordered[i]?.fact_id === fact.fact_id) ordered.splice(i, 1);
}

/** The first position whose key is not before (`at`, `id`). */
function lowerBound(ordered: readonly FactVersionState[], at: number, id: string): number {
  let low = 0;
  let high = ordered.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    const f = ordered[mid]!;
    if (f.observed_at < at || (f.observed_at === at && f.fact_id < id)) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** The newest staged versions of the facts `ids` (all in `flight.pending`). */
function inFlightFacts(flight: InFlight, ids: Iterable<string>): Fact[] {
  const out: Fact[] = [];
  for (const id of ids) out.push(flight.pending.get(id)!.fact);
  return out;
}
