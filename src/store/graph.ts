import type { Entity } from '../domain/entities.js';
import type { Fact } from '../domain/facts.js';
import type { Relationship } from '../domain/relationships.js';
import type { Scope } from '../domain/scope.js';
import { stateMatches, type TemporalQuery } from '../domain/time.js';
import { committed } from './commit-failure.js';
import { hasKeyUnder, KEY_MAX, keyPages, keysUnder, scopeKey, type Key, type Store } from './lmdb.js';

/**
 * The memory graph in LMDB. `putEntity` and `putRelationship` must run inside `Store.transaction` so a
 * record and its secondary entries commit together; readers see the last committed snapshot. Facts are
 * records only, queued as plain puts: their indexes are held in memory per owner
 * (src/actors/owner-facts.ts).
 *
 * Secondary entries, under the owner's scope:
 *   e_created [created_at, id]          e_type [type, created_at, id]
 *   r_obs [observed_at, id]             r_act [observed_at, id] (active only)
 *   r_from [from, observed_at, id]      r_to [to, observed_at, id]
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
   * Queues a fact record for the next commit; resolves once it is durable, rejects with 503 when the
   * disk refused the commit (src/store/commit-failure.ts). Facts have no secondary
   * entries in LMDB: an owner's fact indexes live in its actor's memory (src/domain/fact-index.ts),
   * rebuilt from these records by `loadFacts`.
   */
  putFact(scope: Scope, fact: Fact): Promise<boolean> {
    return committed(this.writeFact(scope, fact));
  }

  /**
   * Inside a transaction: stores a fact version as it is given (an import restoring history), committing
   * with the transaction's other writes. The owner's actor must reload its facts afterwards.
   */
  restoreFact(scope: Scope, fact: Fact): void {
    void this.writeFact(scope, fact);
  }

  private writeFact(scope: Scope, fact: Fact): Promise<boolean> {
    return this.store.records.put([...scopeKey(scope), 'fact', fact.fact_id], fact);
  }

  /** Every stored fact of the owner, in id order. */
  *loadFacts(scope: Scope): Generator<Fact> {
    const prefix = [...scopeKey(scope), 'fact'];
    for (const { value } of this.store.records.getRange({ start: prefix, end: [...prefix, KEY_MAX] })) yield value as Fact;
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
    for await (const keys of keyPages(this.store.records, [...scopeKey(scope), kind], size)) {
      yield keys.flatMap((key) => load(String(key.at(-1))) ?? []);
    }
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

/** Records per page of the owner scans: a few MB of entities or facts. */
const PAGE_SIZE = 1000;

export interface RelationshipQuery extends TemporalQuery {
  from_entity_id?: string | undefined;
  to_entity_id?: string | undefined;
  relationship_type?: string | undefined;
}
