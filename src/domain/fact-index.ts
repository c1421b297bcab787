import type { Fact, FactKey, FactVersionState, SubjectType } from './facts.js';
import type { ListPosition } from './list-page.js';
import { stateMatches, type TemporalQuery } from './time.js';

export interface FactQuery extends TemporalQuery {
  subject_type?: SubjectType | undefined;
  subject_id?: string | undefined;
  predicate?: string | undefined;
  /** Resume strictly past this position of the listing's order (the last fact of the page before). */
  after?: ListPosition | undefined;
}

/** How many facts observed before an assertion are consulted to find the one it cuts short. */
export const NEIGHBOURS_BEFORE = 8;

/**
 * Reads back what never changes in a stored fact (everything but `invalid_from` and `updated_at`), for
 * the versions an index keeps without it; undefined when the fact is no longer stored (erased meanwhile).
 */
export type RestoreFact = (id: string) => Fact | undefined;

/**
 * One owner's facts in memory, ordered the way every fact listing reads them: by (`observed_at`, id).
 * A fact's key never changes (subject, predicate and `observed_at` are immutable); a new version of it
 * only replaces the record and, when it stops being active, leaves the active lists. `remove` (forgetting)
 * takes facts out of every list, and drops the lists it leaves empty.
 *
 * Given `restore`, a fact that is no longer active is kept as its key and state only (~270 bytes, against
 * ~470 whole): an owner's history grows with every supersession while its active facts do not, and
 * every version held whole made each minor GC slower as it grew (docs/performance-facts.md). What a listing
 * returns of such a version is read back through `restore`, a page at a time; filtering, ordering and
 * planning read the key and state alone. Without `restore` every version is kept whole.
 *
 * Built from the owner's stored facts and kept current by `upsert`; knows nothing of storage.
 */
export class FactIndex {
  private readonly byId = new Map<string, Slot>();
  private readonly all: Slot[] = [];
  private readonly active: Slot[] = [];
  private readonly bySubject = new Map<string, Slot[]>();
  private readonly byPredicate = new Map<string, Slot[]>();
  private readonly byChain = new Map<string, Chain>();

  constructor(
    facts: Iterable<Fact> = [],
    private readonly restore?: RestoreFact,
  ) {
    this.upsertAll(facts);
  }

  get size(): number {
    return this.byId.size;
  }

  /** How many facts are active (the others are kept as key and state only, given `restore`). */
  get activeCount(): number {
    return this.active.length;
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  get(id: string): Fact | undefined {
    const slot = this.byId.get(id);
    return slot && this.factOf(slot);
  }

  /** Adds a fact or replaces the stored version of it. */
  upsert(fact: Fact): void {
    const slot = this.byId.get(fact.fact_id);
    if (!slot) {
      this.insertNew(fact);
      return;
    }
    const wasActive = slot.version.invalid_from === null;
    const isActive = fact.invalid_from === null;
    slot.version = this.kept(fact);
    if (wasActive === isActive) return;
    if (isActive) {
      insertSorted(this.active, slot);
      slot.chain.active.add(slot);
    } else {
      removeSorted(this.active, slot);
      slot.chain.active.delete(slot);
    }
  }

  /**
   * `upsert` of many facts, each fact once. Each new fact observed before the last of a list it joins waits,
   * and joins that list with the others in one merge at the end: a history imported newest first (every fact
   * before all the ones held) costs one pass over each list per call, not one per fact, and so does building
   * an owner's index from LMDB, which reads its facts in the order they were created, not observed.
   */
  upsertAll(facts: Iterable<Fact>): void {
    const waiting = new Map<Slot[], Slot[]>();
    const join = (list: Slot[], slot: Slot) => {
      const last = list[list.length - 1];
      if (!last || before(last, slot.version.observed_at, slot.version.fact_id)) {
        list.push(slot);
        return;
      }
      const slots = waiting.get(list);
      if (slots) slots.push(slot);
      else waiting.set(list, [slot]);
    };
    for (const fact of facts) {
      if (this.byId.has(fact.fact_id)) this.upsert(fact);
      else this.insertNew(fact, join);
    }
    for (const [list, slots] of waiting) mergeSorted(list, slots);
  }

  /**
   * Removes facts, every version of them (they were erased); ids not held are ignored. One pass over each
   * list they are in, however many are removed: forgetting a node with thousands of facts stays linear.
   */
  remove(ids: Iterable<string>): void {
    const gone = new Set<Slot>();
    const subjects = new Set<string>();
    const predicates = new Set<string>();
    const chains = new Map<string, Chain>();
    for (const id of ids) {
      const slot = this.byId.get(id);
      if (!slot) continue;
      const { chain } = slot;
      this.byId.delete(id);
      gone.add(slot);
      subjects.add(subjectKey(chain.subject_type, chain.subject_id));
      predicates.add(chain.predicate);
      chains.set(chainKey(chain.subject_type, chain.subject_id, chain.predicate), chain);
      chain.active.delete(slot);
    }
    if (gone.size === 0) return;
    const kept = (slot: Slot) => !gone.has(slot);
    keepOnly(this.all, kept);
    keepOnly(this.active, kept);
    for (const key of subjects) keepOnlyUnder(this.bySubject, key, kept);
    for (const key of predicates) keepOnlyUnder(this.byPredicate, key, kept);
    for (const [key, chain] of chains) {
      keepOnly(chain.all, kept);
      if (chain.all.length === 0) this.byChain.delete(key);
    }
  }

  /** The ids of every fact (any state) about one subject, with their subject: nothing is read back. */
  keysAbout(subjectType: SubjectType, subjectId: string | null): FactKey[] {
    return (this.bySubject.get(subjectKey(subjectType, subjectId)) ?? []).map((slot) => ({ fact_id: slot.version.fact_id, subject_type: subjectType, subject_id: subjectId }));
  }

  /** Every active fact, newest first. */
  activeFacts(): Fact[] {
    return this.descending(this.active, () => true, Infinity);
  }

  /** The facts (any state) of one subject and predicate, by `observed_at` ascending, from strictly past `after`. */
  chain(subjectType: SubjectType, subjectId: string | null, predicate: string, limit = Infinity, after?: ListPosition): Fact[] {
    const chain = this.byChain.get(chainKey(subjectType, subjectId, predicate));
    if (!chain) return [];
    // `id + '\0'` is the least id above `id`: the first slot past the position, whether or not it is still there.
    const start = after ? lowerBound(chain.all, after.at, `${after.id}\0`) : 0;
    const out: Fact[] = [];
    for (let i = start; i < chain.all.length && out.length < limit; i++) {
      const fact = this.factOf(chain.all[i]!);
      if (fact) out.push(fact);
    }
    return out;
  }

  /**
   * The part of a subject-and-predicate chain an assertion observed at `at` can affect: the active facts,
   * the earliest fact observed after `at` (with any observed at the same instant; none unless the assertion is
   * out of order: the one that will cut it short) and, when there is one (or `withBefore`), the few observed
   * at or just before it (among them the one it cuts short). Each as the index keeps it: an inactive one as
   * its key and state (planning reads no more; an assertion backdated into a long history reads none back).
   * Bounded however long the chain: a history imported newest first backdates every assertion before all
   * the ones imported so far, and reading every later fact made such an import quadratic.
   */
  neighbourhood(subjectType: SubjectType, subjectId: string | null, predicate: string, at: number, withBefore = false): FactVersionState[] {
    return this.neighbourhoodOf(chainKey(subjectType, subjectId, predicate), at, withBefore);
  }

  /** `neighbourhood` of the chain whose `chainKey` is `key`. */
  neighbourhoodOf(key: string, at: number, withBefore = false): FactVersionState[] {
    const chain = this.byChain.get(key);
    if (!chain) return [];
    const firstLater = firstAfter(chain.all, at);
    // The common assertion, in order: its chain's active facts only (one, for a single-valued predicate).
    if (firstLater === chain.all.length && !withBefore) return Array.from(chain.active, (slot) => slot.version);
    const found = new Set<Slot>(chain.active);
    const firstLaterAt = chain.all[firstLater]?.version.observed_at;
    for (let i = firstLater; i < chain.all.length && chain.all[i]!.version.observed_at === firstLaterAt; i++) found.add(chain.all[i]!);
    for (let i = firstLater - 1; i >= Math.max(0, firstLater - NEIGHBOURS_BEFORE); i--) found.add(chain.all[i]!);
    return Array.from(found, (slot) => slot.version);
  }

  /**
   * `neighbourhoodOf(key, at)` when none of the chain is observed after `at` (an assertion in order): its active
   * facts. Null when some of it is: then the caller wants more of the chain than this.
   */
  activeInOrder(key: string, at: number): FactVersionState[] | null {
    const chain = this.byChain.get(key);
    if (!chain) return [];
    if (firstAfter(chain.all, at) < chain.all.length) return null;
    return Array.from(chain.active, (slot) => slot.version);
  }

  /** A fact listing: newest first, filtered by subject, predicate and state (`as_of` or `include_inactive`). */
  list(query: FactQuery): Fact[] {
    const matches = (slot: Slot): boolean =>
      (query.subject_type === undefined ||
        (slot.chain.subject_type === query.subject_type && slot.chain.subject_id === (query.subject_id ?? null))) &&
      (query.predicate === undefined || slot.chain.predicate === query.predicate) &&
      stateMatches(slot.version, query);
    if (query.subject_type !== undefined) {
      const source =
        query.predicate !== undefined
          ? this.byChain.get(chainKey(query.subject_type, query.subject_id ?? null, query.predicate))?.all
          : this.bySubject.get(subjectKey(query.subject_type, query.subject_id ?? null));
      return this.descending(source ?? [], matches, query.limit, query.after);
    }
    if (query.predicate !== undefined) return this.descending(this.byPredicate.get(query.predicate) ?? [], matches, query.limit, query.after);
    if (query.as_of !== undefined) {
      return this.descending(this.all, matches, query.limit, query.after, lowerBound(this.all, query.as_of + 1, ''));
    }
    return this.descending(query.include_inactive ? this.all : this.active, matches, query.limit, query.after);
  }

  /** Adds a fact not held yet; `join` puts its slot into each list (in order, or later with `upsertAll`). */
  private insertNew(fact: Fact, join: (list: Slot[], slot: Slot) => void = insertSorted): void {
    const key = chainKey(fact.subject_type, fact.subject_id, fact.predicate);
    let chain = this.byChain.get(key);
    if (!chain) {
      chain = { subject_type: fact.subject_type, subject_id: fact.subject_id, predicate: fact.predicate, all: [], active: new Set() };
      this.byChain.set(key, chain);
    }
    const slot: Slot = { version: this.kept(fact), chain };
    this.byId.set(fact.fact_id, slot);
    join(this.all, slot);
    join(listIn(this.bySubject, subjectKey(fact.subject_type, fact.subject_id)), slot);
    join(listIn(this.byPredicate, fact.predicate), slot);
    join(chain.all, slot);
    if (fact.invalid_from === null) {
      join(this.active, slot);
      chain.active.add(slot);
    }
  }

  /** Whether a version in this state is kept whole: while it is active, or with nothing to read it back from. */
  private keptWhole(version: FactVersionState): boolean {
    return version.invalid_from === null || !this.restore;
  }

  /** What a slot keeps of a version: the fact whole (`keptWhole`), else its key and state. */
  private kept(fact: Fact): Fact | FactVersionState {
    if (this.keptWhole(fact)) return fact;
    return { fact_id: fact.fact_id, observed_at: fact.observed_at, invalid_from: fact.invalid_from, updated_at: fact.updated_at };
  }

  /** The version a slot stands for, whole: read back when the slot keeps its key and state only. */
  private factOf(slot: Slot): Fact | undefined {
    const version = slot.version;
    if (this.keptWhole(version)) return version as Fact;
    const content = this.restore!(version.fact_id);
    return content && { ...content, invalid_from: version.invalid_from, updated_at: version.updated_at };
  }

  /**
   * Walks `list` down from `end` (exclusive), or from strictly before `after` when that comes first, keeping
   * the matching facts, up to `limit`: a page past a position costs a binary search, not the pages before it,
   * and only the facts it returns are read back.
   */
  private descending(list: Slot[], matches: (slot: Slot) => boolean, limit: number, after?: ListPosition, end = list.length): Fact[] {
    const out: Fact[] = [];
    const from = after ? Math.min(end, lowerBound(list, after.at, after.id)) : end;
    for (let i = from - 1; i >= 0 && out.length < limit; i--) {
      const slot = list[i]!;
      if (!matches(slot)) continue;
      const fact = this.factOf(slot);
      if (fact) out.push(fact);
    }
    return out;
  }
}

/** A fact's current version in every list that holds it: a new version is one assignment. */
interface Slot {
  /** The fact whole while it is active; once inactive, given `restore`, its key and state only. */
  version: Fact | FactVersionState;
  /** The subject-and-predicate chain it belongs to (fixed: subject and predicate never change). */
  readonly chain: Chain;
}

interface Chain {
  readonly subject_type: SubjectType;
  readonly subject_id: string | null;
  readonly predicate: string;
  all: Slot[];
  active: Set<Slot>;
}

/**
 * Map keys: the subject type is one of three words without a colon and the id's length comes before it, so
 * no two subjects (or subject-and-predicate pairs) share a key, at a fraction of JSON.stringify's cost.
 */
function subjectKey(type: SubjectType, id: string | null): string {
  return id === null ? type : `${type}:${id.length}:${id}`;
}

/** The key of a subject-and-predicate chain (see `subjectKey`): one per chain, whatever characters it holds. */
export function chainKey(type: SubjectType, id: string | null, predicate: string): string {
  return `${subjectKey(type, id)}/${predicate}`;
}

function listIn(map: Map<string, Slot[]>, key: string): Slot[] {
  let list = map.get(key);
  if (!list) map.set(key, (list = []));
  return list;
}

/** Orders by `observed_at`, then id (the order of the listing keys: oldest first). */
function before(slot: Slot, at: number, id: string): boolean {
  const v = slot.version;
  return v.observed_at < at || (v.observed_at === at && v.fact_id < id);
}

/** The first position whose key is not before (`at`, `id`). */
function lowerBound(list: Slot[], at: number, id: string): number {
  let low = 0;
  let high = list.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (before(list[mid]!, at, id)) low = mid + 1;
    else high = mid;
  }
  return low;
}

/**
 * The first position of a fact observed after `at`. Facts mostly arrive in order, so the common answer (none:
 * the end) is read from the last fact, without a binary search through slots scattered over the heap.
 */
function firstAfter(list: Slot[], at: number): number {
  const last = list[list.length - 1];
  if (!last || last.version.observed_at <= at) return list.length;
  return lowerBound(list, at + 1, '');
}

/** Facts mostly arrive in order, so the common insert is a push. */
function insertSorted(list: Slot[], slot: Slot): void {
  const last = list[list.length - 1];
  const { observed_at, fact_id } = slot.version;
  if (!last || before(last, observed_at, fact_id)) list.push(slot);
  else list.splice(lowerBound(list, observed_at, fact_id), 0, slot);
}

/** Merges `slots` (in any order, none in `list` yet) into the sorted `list`, in place: one pass from the end. */
function mergeSorted(list: Slot[], slots: Slot[]): void {
  slots.sort((a, b) => (before(a, b.version.observed_at, b.version.fact_id) ? -1 : 1));
  let from = list.length - 1;
  let to = list.length + slots.length - 1;
  // Grown by pushes, not by setting its length: an array with holes stays slower to read for the rest of its life.
  for (let i = 0; i < slots.length; i++) list.push(slots[0]!);
  for (let i = slots.length - 1; i >= 0; i--) {
    const slot = slots[i]!;
    while (from >= 0 && !before(list[from]!, slot.version.observed_at, slot.version.fact_id)) list[to--] = list[from--]!;
    list[to--] = slot;
  }
}

function removeSorted(list: Slot[], slot: Slot): void {
  const i = lowerBound(list, slot.version.observed_at, slot.version.fact_id);
  if (list[i] === slot) list.splice(i, 1);
}

/** Keeps, in place and in order, the slots of `list` that `kept` accepts. */
function keepOnly(list: Slot[], kept: (slot: Slot) => boolean): void {
  let to = 0;
  for (const slot of list) if (kept(slot)) list[to++] = slot;
  list.length = to;
}

/** `keepOnly` on the list under `key`, dropping the list once empty (forgotten subjects leave nothing). */
function keepOnlyUnder(map: Map<string, Slot[]>, key: string, kept: (slot: Slot) => boolean): void {
  const list = map.get(key);
  if (!list) return;
  keepOnly(list, kept);
  if (list.length === 0) map.delete(key);
}
