import type { Entity } from '../domain/entities.js';
import type { Fact } from '../domain/facts.js';
import type { ListPosition } from '../domain/list-page.js';
import { entityHasName } from '../domain/names.js';
import type { Relationship } from '../domain/relationships.js';
import type { Scope } from '../domain/scope.js';
import { stateMatches, type TemporalQuery } from '../domain/time.js';
import { committed } from './commit-failure.js';
import { EntityNames } from './entity-names.js';
import { hasKeyUnder, KEY_MAX, keyPages, keysUnder, scopeKey, type Key, type Store } from './lmdb.js';

/**
 * The memory graph in LMDB. `putEntity` and `putRelationship` must run inside `Store.transaction` so a
 * record and its secondary entries commit together; readers see the last committed snapshot. Facts are
 * records only, queued as plain puts: their indexes are held in memory per owner
 * (src/actors/owner-facts.ts). The `remove*` methods (forgetting) must also run inside `Store.transaction`,
 * so a record leaves with its secondary entries; they address records by key only, never by their encoding.
 *
 * Secondary entries, under the owner's scope:
 *   e_created [created_at, id]          e_type [type, created_at, id]
 *   r_obs [observed_at, id]             r_act [observed_at, id] (active only)
 *   r_from [from, observed_at, id]      r_to [to, observed_at, id]
 *   e_name [keyed name tag, created_at, id] (src/store/entity-names.ts)
 * Lists read an index in its order and resume strictly past a position (src/domain/list-page.ts).
 */
export class GraphStore {
  readonly names: EntityNames;

  constructor(private readonly store: Store) {
    this.names = new EntityNames(store);
  }

  getEntity(scope: Scope, id: string): Entity | undefined {
    return this.store.content.get<Entity>([...scopeKey(scope), 'ent', id]);
  }

  putEntity(scope: Scope, entity: Entity, previous: Entity | undefined): void {
    const s = scopeKey(scope);
    const id = entity.memory_entity_id;
    if (previous && previous.entity_type !== entity.entity_type) {
      this.store.index.remove([...s, 'e_type', previous.entity_type, previous.created_at, id]);
    }
    this.names.put(scope, entity, previous);
    this.store.content.put([...s, 'ent', id], entity);
    this.store.index.put([...s, 'e_created', entity.created_at, id], true);
    this.store.index.put([...s, 'e_type', entity.entity_type, entity.created_at, id], true);
  }

  /** Removes a node's record and its secondary entries (created_at and type never change once indexed). */
  removeEntity(scope: Scope, entity: Entity): void {
    const s = scopeKey(scope);
    const id = entity.memory_entity_id;
    this.store.records.remove([...s, 'ent', id]);
    this.store.index.remove([...s, 'e_created', entity.created_at, id]);
    this.store.index.remove([...s, 'e_type', entity.entity_type, entity.created_at, id]);
    this.names.remove(scope, entity);
  }

  /**
   * Nodes by `created_at` ascending: of a type, and/or called `name` (folded, src/domain/names.ts) by their
   * display name or an alias. A name lookup reads the name index (complete only once `names.complete`) and
   * checks each node's names, so a stale or colliding entry never answers.
   */
  listEntities(scope: Scope, query: EntityQuery): Entity[] {
    const s = scopeKey(scope);
    const { entity_type: type, name } = query;
    let prefix: Key = type === undefined ? [...s, 'e_created'] : [...s, 'e_type', type];
    if (name !== undefined) {
      const tag = this.names.lookupTag(scope, name);
      if (tag === undefined) return [];
      prefix = this.names.prefix(scope, tag);
    }
    const matches = (e: Entity) => (type === undefined || e.entity_type === type) && (name === undefined || entityHasName(e, name));
    return this.collect(prefix, false, (id) => this.getEntity(scope, id), matches, query.limit, query.after);
  }

  getRelationship(scope: Scope, id: string): Relationship | undefined {
    return this.store.content.get<Relationship>([...scopeKey(scope), 'rel', id]);
  }

  putRelationship(scope: Scope, edge: Relationship): void {
    const s = scopeKey(scope);
    const { relationship_id: id, observed_at: at } = edge;
    this.store.content.put([...s, 'rel', id], edge);
    this.store.index.put([...s, 'r_obs', at, id], true);
    this.store.index.put([...s, 'r_from', edge.from_entity_id, at, id], true);
    this.store.index.put([...s, 'r_to', edge.to_entity_id, at, id], true);
    if (edge.invalid_from === null) this.store.index.put([...s, 'r_act', at, id], true);
    else this.store.index.remove([...s, 'r_act', at, id]);
  }

  /** Removes an edge's record and every secondary entry it may have (endpoints and observed_at are immutable). */
  removeRelationship(scope: Scope, edge: Relationship): void {
    const s = scopeKey(scope);
    const { relationship_id: id, observed_at: at } = edge;
    this.store.records.remove([...s, 'rel', id]);
    this.store.index.remove([...s, 'r_obs', at, id]);
    this.store.index.remove([...s, 'r_act', at, id]);
    this.store.index.remove([...s, 'r_from', edge.from_entity_id, at, id]);
    this.store.index.remove([...s, 'r_to', edge.to_entity_id, at, id]);
  }

  /** Every edge (any state) from or to a node, through the endpoint indexes; a self-loop comes twice. */
  *relationshipsTouching(scope: Scope, entityId: string): Generator<Relationship> {
    for (const id of this.relationshipIdsTouching(scope, entityId)) {
      const edge = this.getRelationship(scope, id);
      if (edge) yield edge;
    }
  }

  /** The ids of every edge (any state) from or to a node, from the endpoint indexes alone; a self-loop's twice. */
  *relationshipIdsTouching(scope: Scope, entityId: string): Generator<string> {
    const s = scopeKey(scope);
    for (const side of ['r_from', 'r_to']) {
      for (const key of keysUnder(this.store.index, [...s, side, entityId])) yield key[key.length - 1] as string;
    }
  }

  listRelationships(scope: Scope, query: RelationshipQuery): Relationship[] {
    const s = scopeKey(scope);
    const prefix =
      query.from_entity_id !== undefined
        ? [...s, 'r_from', query.from_entity_id]
        : query.to_entity_id !== undefined
          ? [...s, 'r_to', query.to_entity_id]
          : [...s, query.as_of !== undefined || query.include_inactive ? 'r_obs' : 'r_act'];
    const matches = (e: Relationship): boolean =>
      (query.from_entity_id === undefined || e.from_entity_id === query.from_entity_id) &&
      (query.to_entity_id === undefined || e.to_entity_id === query.to_entity_id) &&
      (query.relationship_type === undefined || e.relationship_type === query.relationship_type) &&
      stateMatches(e, query);
    return this.collect(prefix, true, (id) => this.getRelationship(scope, id), matches, query.limit, query.after);
  }

  /**
   * A stored fact's content: what never changes once it is stored (its state, `invalid_from` and
   * `updated_at`, may have changed since: `getFact` has both). What an owner's fact index reads back of a
   * version it keeps as key and state only (src/domain/fact-index.ts).
   */
  factContent(scope: Scope, id: string): Fact | undefined {
    return this.contentOf(scopeKey(scope), id);
  }

  getFact(scope: Scope, id: string): Fact | undefined {
    const s = scopeKey(scope);
    const fact = this.contentOf(s, id);
    if (!fact) return undefined;
    const legacy = this.store.records.get([...s, LEGACY_FACT_STATE, id]) as FactState | undefined;
    return withState(withState(fact, legacy), this.store.records.get(stateKey(s, id)) as FactState | undefined);
  }

  /**
   * Queues a new fact for the next commit; resolves once it is durable, rejects with 503 when the disk
   * refused the commit (src/store/commit-failure.ts). Facts have no secondary entries in LMDB: an owner's fact
   * indexes live in its actor's memory (src/domain/fact-index.ts), rebuilt from these records by `loadFacts`.
   *
   * A fact's content never changes once stored: a later version of it (superseded, retracted,
   * consolidated) differs only in `invalid_from` and `updated_at`, which go to a small record of their own
   * (ids and instants only, `putFactState`), keyed right after the fact's record (`factStateKey`). So
   * closing a fact re-seals nothing (src/store/content.ts), and an assertion that supersedes another seals
   * one record, not two. The caller says which of the two a version is (the owner's actor knows every
   * fact it stored), so a write reads nothing first.
   */
  putFact(scope: Scope, fact: Fact): Promise<boolean> {
    return committed(this.putFactVersion(scope, fact, 'new'));
  }

  /** Queues a stored fact's later version for the next commit: its state record only. */
  putFactState(scope: Scope, fact: Fact): Promise<boolean> {
    return committed(this.putFactVersion(scope, fact, 'later'));
  }

  /**
   * Inside a transaction: stores a fact version as `putFact` or `putFactState` does, committing with the
   * transaction's other writes (a batch of memory operations). A new fact's version may already be closed:
   * a batch that asserts a fact and supersedes it stores its last version only (src/actors/owner-facts.ts),
   * which reads as a restored one does.
   */
  putFactWithin(scope: Scope, fact: Fact, version: FactVersion): void {
    void this.putFactVersion(scope, fact, version);
  }

  /**
   * A command's fact versions (the new fact's content, the others' states) and `alongside`'s writes in one
   * transaction: they commit together or not at all (a write and its kept answer, src/http/idempotency.ts).
   * `alongside` runs first: it reads before it writes, so nothing of the facts is put if it throws (Store).
   */
  putFactsAlong(scope: Scope, facts: ReadonlyArray<{ fact: Fact; version: FactVersion }>, alongside: () => void): Promise<void> {
    return this.store.transaction(() => {
      alongside();
      for (const { fact, version } of facts) void this.putFactVersion(scope, fact, version);
    });
  }

  private putFactVersion(scope: Scope, fact: Fact, version: FactVersion): Promise<boolean> {
    const s = scopeKey(scope);
    if (version === 'new') return this.store.content.put([...s, 'fact', fact.fact_id], fact);
    const state: FactState = { invalid_from: fact.invalid_from, updated_at: fact.updated_at };
    return this.store.records.put(stateKey(s, fact.fact_id), state);
  }

  /**
   * Inside a transaction: stores a fact version whole, as it is given (an import restoring history into an
   * empty owner), committing with the transaction's other writes. The owner's actor must reload its facts afterwards.
   */
  restoreFact(scope: Scope, fact: Fact): void {
    void this.store.content.put([...scopeKey(scope), 'fact', fact.fact_id], fact);
  }

  /** `factContent` under an owner's scope key already made. */
  private contentOf(s: Key, id: string): Fact | undefined {
    return this.store.content.get<Fact>([...s, 'fact', id]);
  }

  /** Removes a fact (every version: its record and its state). */
  removeFact(scope: Scope, id: string): void {
    const s = scopeKey(scope);
    this.store.records.remove([...s, 'fact', id]);
    this.store.records.remove(stateKey(s, id));
    this.store.records.remove([...s, LEGACY_FACT_STATE, id]);
  }

  /**
   * Every stored fact of the owner, as it now stands, in id order. One range read: the facts' records, each
   * followed by its state (an id never holds the key separator, byte 0), then the legacy states (`fst` sorts
   * after `fact`); a second range for the legacy states cost a cold owner's load ~10% of its time.
   */
  loadFacts(scope: Scope): Fact[] {
    const s = scopeKey(scope);
    const facts: Fact[] = [];
    const states: Array<FactState | undefined> = [];
    let legacy: Map<string, FactState> | undefined;
    for (const { key, value } of this.store.content.range({ start: [...s, 'fact'], end: [...s, LEGACY_FACT_STATE, KEY_MAX] })) {
      const kind = key[3];
      if (kind === LEGACY_FACT_STATE) (legacy ??= new Map()).set(key.at(-1) as string, value as FactState);
      else if (kind !== 'fact') continue;
      else if (!isFactStateKey(key)) facts.push(value as Fact);
      else if (facts.at(-1)?.fact_id === key[4]) states[facts.length - 1] = value as FactState;
    }
    // The legacy state first, then the state beside the fact, as each was written in its time.
    return facts.map((fact, i) => withState(withState(fact, legacy?.get(fact.fact_id)), states[i]));
  }

  /** The owner's entities in id order, a page at a time (`keyPages`: no snapshot held between pages). */
  entityPages(scope: Scope, size = PAGE_SIZE): AsyncGenerator<Entity[]> {
    return this.pages(scope, 'ent', size, (id) => this.getEntity(scope, id));
  }

  /** The owner's relationships (retracted ones too) in id order, a page at a time. */
  relationshipPages(scope: Scope, size = PAGE_SIZE): AsyncGenerator<Relationship[]> {
    return this.pages(scope, 'rel', size, (id) => this.getRelationship(scope, id));
  }

  /** Every stored fact version of the owner (superseded and retracted ones too) in id order, a page at a time. */
  factPages(scope: Scope, size = PAGE_SIZE): AsyncGenerator<Fact[]> {
    return this.pages(scope, 'fact', size, (id) => this.getFact(scope, id));
  }

  /** Whether the owner has any entity, relationship or fact. */
  hasRecords(scope: Scope): boolean {
    const s = scopeKey(scope);
    return ['ent', 'rel', 'fact'].some((kind) => hasKeyUnder(this.store.records, [...s, kind]));
  }

  /** Records of one kind, read through `load` (the store's own get) page by page. */
  private async *pages<T>(scope: Scope, kind: string, size: number, load: (id: string) => T | undefined): AsyncGenerator<T[]> {
    const prefix = [...scopeKey(scope), kind];
    for await (const keys of keyPages(this.store.records, prefix, size)) {
      // A record's own key is its kind's prefix and its id; longer keys are parts of a record (a fact's state).
      yield keys.flatMap((key) => (key.length === prefix.length + 1 ? (load(String(key.at(-1))) ?? []) : []));
    }
  }

  /**
   * Walks an index range whose keys end with (instant, id), from strictly past `after` when given, loads
   * each record and keeps the matching ones.
   */
  private collect<T>(
    prefix: Key,
    reverse: boolean,
    load: (id: string) => T | undefined,
    matches: (record: T) => boolean,
    limit: number,
    after?: ListPosition,
  ): T[] {
    const out: T[] = [];
    if (limit <= 0) return out;
    const from = after && [after.at, after.id];
    for (const key of keysUnder(this.store.index, prefix, from ? { reverse, from } : { reverse })) {
      const id = key[key.length - 1] as string;
      // The range starts at the position itself (inclusive bounds): the record there was on the page before.
      if (after && id === after.id && key[key.length - 2] === after.at) continue;
      const record = load(id);
      if (record !== undefined && matches(record)) {
        out.push(record);
        if (out.length >= limit) break;
      }
    }
    return out;
  }
}

/** Records per page of the owner scans: a few MB of entities or facts. */
const PAGE_SIZE = 1000;

export interface RelationshipQuery extends TemporalQuery {
  from_entity_id?: string | undefined;
  to_entity_id?: string | undefined;
  relationship_type?: string | undefined;
  after?: ListPosition | undefined;
}

export interface EntityQuery {
  entity_type?: string | undefined;
  /** A folded name (src/domain/names.ts `foldName`). */
  name?: string | undefined;
  limit: number;
  after?: ListPosition | undefined;
}

/**
 * Where a stored fact's later state lives: `[...scope, 'fact', fact_id, 'st'] → FactState`, the key right
 * after the fact's own, so the state written when an assertion supersedes the owner's latest fact usually
 * lands in the leaf page its new fact dirties anyway. Under a range of its own (`fst`, the layout before
 * 2026-11-27, still read) each such assertion dirtied two leaves per owner: ~18 KB written per assertion
 * against ~11 (docs/performance-facts.md).
 */
const FACT_STATE = 'st';
const LEGACY_FACT_STATE = 'fst';

/** The key of a fact's state record (tests look there). */
export function factStateKey(scope: Scope, factId: string): Key {
  return stateKey(scopeKey(scope), factId);
}

/** `factStateKey` under an owner's scope key already made. */
const stateKey = (s: Key, factId: string): Key => [...s, 'fact', factId, FACT_STATE];

/** Whether a key under an owner is a fact's state record rather than a record of its own (erasure counts). */
export function isFactStateKey(key: Key): boolean {
  // [tenant, partition, owner, 'fact', fact_id, 'st']
  return key.length === 6 && key[3] === 'fact' && key[5] === FACT_STATE;
}

/** Which record a fact version goes to: a new fact's content, or a stored fact's state. */
export type FactVersion = 'new' | 'later';

/** What changes in a fact after it is stored. */
interface FactState {
  invalid_from: number | null;
  updated_at: number;
}

/** The fact as it now stands: its stored content with its latest state, whichever was written last. */
function withState(fact: Fact, state: FactState | undefined): Fact {
  return state && state.updated_at >= fact.updated_at ? { ...fact, invalid_from: state.invalid_from, updated_at: state.updated_at } : fact;
}
