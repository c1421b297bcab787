import type { Entity } from '../domain/entities.js';
import { byObservedDesc, type Fact, type SubjectType } from '../domain/facts.js';
import type { Relationship } from '../domain/relationships.js';
import type { Scope } from '../domain/scope.js';
import { activeAt } from '../domain/time.js';
import { keysUnder, scopeKey, type Key, type Store } from './lmdb.js';

/**
 * The memory graph in LMDB. Writers (`put*`) must run inside `Store.transaction` so a record and its
 * secondary entries commit together; readers see the last committed snapshot.
 *
 * Secondary entries, under the owner's scope:
 *   e_created [created_at, id]          e_type [type, created_at, id]
 *   r_obs [observed_at, id]             r_act [observed_at, id] (active only)
 *   r_from [from, observed_at, id]      r_to [to, observed_at, id]
 *   f_obs [observed_at, id]             f_act [observed_at, id] (active only)
 *   f_sp [subject_type, subject_id, predicate, observed_at, id]   f_pred [predicate, observed_at, id]
 */
export class GraphStore {
  constructor(private readonly store: Store) {}

  getEntity(scope: Scope, id: string): Entity | undefined {
    return this.store.records.get([...scopeKey(scope), 'ent', id]) as Entity | undefined;
  }

  putEntity(scope: Scope, entity: Entity, previous: Entity | undefined): void {
    const s = scopeKey(scope);
    const id = entity.memory_entity_id;
    if (previous && previous.entity_type !== entity.entity_type) {
      this.store.index.remove([...s, 'e_type', previous.entity_type, previous.created_at, id]);
    }
    this.store.records.put([...s, 'ent', id], entity);
    this.store.index.put([...s, 'e_created', entity.created_at, id], true);
    this.store.index.put([...s, 'e_type', entity.entity_type, entity.created_at, id], true);
  }

  listEntities(scope: Scope, query: { entity_type?: string | undefined; limit: number }): Entity[] {
    const s = scopeKey(scope);
    const prefix = query.entity_type === undefined ? [...s, 'e_created'] : [...s, 'e_type', query.entity_type];
    return this.collect(prefix, false, (id) => this.getEntity(scope, id), () => true, query.limit);
  }

  getRelationship(scope: Scope, id: string): Relationship | undefined {
    return this.store.records.get([...scopeKey(scope), 'rel', id]) as Relationship | undefined;
  }

  putRelationship(scope: Scope, edge: Relationship): void {
    const s = scopeKey(scope);
    const { relationship_id: id, observed_at: at } = edge;
    this.store.records.put([...s, 'rel', id], edge);
    this.store.index.put([...s, 'r_obs', at, id], true);
    this.store.index.put([...s, 'r_from', edge.from_entity_id, at, id], true);
    this.store.index.put([...s, 'r_to', edge.to_entity_id, at, id], true);
    if (edge.invalid_from === null) this.store.index.put([...s, 'r_act', at, id], true);
    else this.store.index.remove([...s, 'r_act', at, id]);
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
    return this.collect(prefix, true, (id) => this.getRelationship(scope, id), matches, query.limit);
  }

  getFact(scope: Scope, id: string): Fact | undefined {
    return this.store.records.get([...scopeKey(scope), 'fact', id]) as Fact | undefined;
  }

  /**
   * Writes a fact and its index entries. With `previous` (the stored version of the same fact), only the
   * entries that depend on its state change: subject, predicate and `observed_at` are immutable.
   */
  putFact(scope: Scope, fact: Fact, previous?: Fact): void {
    const s = scopeKey(scope);
    const { fact_id: id, observed_at: at } = fact;
    this.store.records.put([...s, 'fact', id], fact);
    const sp = [fact.subject_type, fact.subject_id ?? '', fact.predicate, at, id];
    if (!previous) {
      this.store.index.put([...s, 'f_obs', at, id], true);
      this.store.index.put([...s, 'f_sp', ...sp], true);
      this.store.index.put([...s, 'f_pred', fact.predicate, at, id], true);
    } else if ((previous.invalid_from === null) === (fact.invalid_from === null)) {
      return;
    }
    if (fact.invalid_from === null) {
      this.store.index.put([...s, 'f_act', at, id], true);
      this.store.index.put([...s, 'f_spa', ...sp], true);
    } else {
      this.store.index.remove([...s, 'f_act', at, id]);
      this.store.index.remove([...s, 'f_spa', ...sp]);
    }
  }

  /** The facts (any state) of one subject and predicate, by `observed_at` ascending. */
  factChain(scope: Scope, subjectType: SubjectType, subjectId: string | null, predicate: string, limit = Infinity): Fact[] {
    const prefix = [...scopeKey(scope), 'f_sp', subjectType, subjectId ?? '', predicate];
    return this.collect(prefix, false, (id) => this.getFact(scope, id), () => true, limit);
  }

  /**
   * The part of a subject-and-predicate chain an assertion observed at `at` can affect: the active facts,
   * every fact observed after `at` (none unless the assertion is out of order) and the few observed just
   * before it. Bounded by the key's active set, not by its history, so long chains stay cheap to extend.
   */
  factNeighbourhood(scope: Scope, subjectType: SubjectType, subjectId: string | null, predicate: string, at: number): Fact[] {
    const sp = [...scopeKey(scope), 'f_sp', subjectType, subjectId ?? '', predicate];
    const load = (id: string): Fact | undefined => this.getFact(scope, id);
    const all = () => true;
    const found = new Map<string, Fact>();
    const add = (facts: Fact[]) => facts.forEach((f) => found.set(f.fact_id, f));
    add(this.collect([...scopeKey(scope), 'f_spa', subjectType, subjectId ?? '', predicate], false, load, all, Infinity));
    const later = this.collect(sp, false, load, all, Infinity, [at + 1]);
    add(later);
    // Only an out-of-order assertion (something observed after it) can cut short an earlier fact.
    if (later.length > 0) add(this.collect(sp, true, load, all, NEIGHBOURS_BEFORE, [at]));
    return [...found.values()];
  }

  /** Every active fact of the owner, newest first. */
  activeFacts(scope: Scope): Fact[] {
    return this.collect([...scopeKey(scope), 'f_act'], true, (id) => this.getFact(scope, id), () => true, Infinity);
  }

  listFacts(scope: Scope, query: FactQuery): Fact[] {
    const s = scopeKey(scope);
    const matches = (f: Fact): boolean =>
      (query.subject_type === undefined ||
        (f.subject_type === query.subject_type && f.subject_id === (query.subject_id ?? null))) &&
      (query.predicate === undefined || f.predicate === query.predicate) &&
      stateMatches(f, query);
    const load = (id: string): Fact | undefined => this.getFact(scope, id);
    if (query.subject_type !== undefined) {
      // A subject's facts span predicates, so the subject range is gathered whole and then ordered.
      const prefix = [...s, 'f_sp', query.subject_type, query.subject_id ?? ''];
      if (query.predicate !== undefined) prefix.push(query.predicate);
      return this.collect(prefix, false, load, matches, Infinity).sort(byObservedDesc).slice(0, query.limit);
    }
    if (query.predicate !== undefined) {
      return this.collect([...s, 'f_pred', query.predicate], true, load, matches, query.limit);
    }
    if (query.as_of !== undefined) {
      return this.collect([...s, 'f_obs'], true, load, matches, query.limit, [query.as_of]);
    }
    return this.collect([...s, query.include_inactive ? 'f_obs' : 'f_act'], true, load, matches, query.limit);
  }

  /** Walks an index range (id is the key's last part), loads each record and keeps the matching ones. */
  private collect<T>(
    prefix: Key,
    reverse: boolean,
    load: (id: string) => T | undefined,
    matches: (record: T) => boolean,
    limit: number,
    from?: Key,
  ): T[] {
    const out: T[] = [];
    if (limit <= 0) return out;
    for (const key of keysUnder(this.store.index, prefix, from ? { reverse, from } : { reverse })) {
      const record = load(key[key.length - 1] as string);
      if (record !== undefined && matches(record)) {
        out.push(record);
        if (out.length >= limit) break;
      }
    }
    return out;
  }
}

/** How many facts observed before an assertion are consulted to find the one it cuts short. */
const NEIGHBOURS_BEFORE = 8;

export interface TemporalQuery {
  include_inactive?: boolean | undefined;
  as_of?: number | undefined;
  limit: number;
}

export interface RelationshipQuery extends TemporalQuery {
  from_entity_id?: string | undefined;
  to_entity_id?: string | undefined;
  relationship_type?: string | undefined;
}

export interface FactQuery extends TemporalQuery {
  subject_type?: SubjectType | undefined;
  subject_id?: string | undefined;
  predicate?: string | undefined;
}

/** `as_of` selects what was active then; otherwise `include_inactive` decides. */
function stateMatches(record: { observed_at: number; invalid_from: number | null }, query: TemporalQuery): boolean {
  if (query.as_of !== undefined) return activeAt(record, query.as_of);
  return query.include_inactive === true || record.invalid_from === null;
}
