import { createHmac } from 'node:crypto';
import type { Entity } from '../domain/entities.js';
import { entityNameForms } from '../domain/names.js';
import type { Scope } from '../domain/scope.js';
import { hasKeyUnder, scopeKey, type Key, type Store } from './lmdb.js';

/** Bytes of a name tag kept in a key: 128 bits, and a lookup checks the names of what it finds anyway. */
const TAG_BYTES = 16;

/**
 * The name index of an owner's entities, for `GET /v1/memory/entities?name=`. Names are owner content,
 * sealed at rest, so the index holds no name: its entries are `[...scope, 'e_name', tag, created_at, id]`,
 * where `tag` is HMAC-SHA256 of the folded name (src/domain/names.ts) under a key derived from the owner's
 * data key (src/store/owner-keys.ts). Without the key a tag names nothing and cannot be matched against
 * guessed names; erasing the owner destroys the key, so entries LMDB left in freed pages stay meaningless.
 * With CONTENT_ENCRYPTION=off the same key is used: an owner gets its data key at its first named entity
 * (its records stay in clear), so one owner's tags never change with the setting and erasure shreds them.
 *
 * The entries are kept exact by `put` and `remove`, which the graph store calls wherever an entity is
 * written or erased (upsert, forget, import; an owner's erasure removes every key under its scope). An
 * owner whose entities were written before the index existed has no marker (`[...scope, 'e_name_all']`):
 * `complete` says so, and its actor indexes the entities once before the first lookup.
 */
export class EntityNames {
  /** The name key of each data key (the key store hands out one Buffer per owner key while cached). */
  private readonly nameKeys = new WeakMap<Buffer, Buffer>();

  constructor(private readonly store: Store) {}

  /** The tag a lookup of `folded` searches for; undefined when the owner has no data key, so no indexed name. */
  lookupTag(scope: Scope, folded: string): string | undefined {
    const dataKey = this.store.keys.existing(owner(scope));
    return dataKey && this.tag(dataKey, folded);
  }

  /** The prefix of the entries of one tag (then created_at, id). */
  prefix(scope: Scope, tag: string): Key {
    return [...scopeKey(scope), 'e_name', tag];
  }

  /** Inside a transaction: indexes a node's names, removing those `previous` had and it no longer has. */
  put(scope: Scope, entity: Entity, previous: Entity | undefined): void {
    // The owner's first node (before its own entries are written): the index starts complete.
    if (!previous && !hasKeyUnder(this.store.index, [...scopeKey(scope), 'e_created'])) this.markComplete(scope);
    const names = entityNameForms(entity);
    const stale = previous ? [...entityNameForms(previous)].filter((name) => !names.has(name)) : [];
    if (names.size === 0 && stale.length === 0) return;
    const dataKey = this.store.keys.keyFor(owner(scope));
    for (const name of stale) this.store.index.remove(this.entry(scope, this.tag(dataKey, name), previous!));
    for (const name of names) this.store.index.put(this.entry(scope, this.tag(dataKey, name), entity), true);
  }

  /** Inside a transaction: removes a node's entries (forgetting it). */
  remove(scope: Scope, entity: Entity): void {
    const dataKey = this.store.keys.existing(owner(scope));
    if (!dataKey) return;
    for (const name of entityNameForms(entity)) this.store.index.remove(this.entry(scope, this.tag(dataKey, name), entity));
  }

  /** Whether every entity of the owner is indexed: it has the marker, or no entity at all. */
  complete(scope: Scope): boolean {
    const s = scopeKey(scope);
    return this.store.index.doesExist([...s, MARKER]) || !hasKeyUnder(this.store.index, [...s, 'e_created']);
  }

  /** Inside a transaction: every entity of the owner is indexed from now on. */
  markComplete(scope: Scope): void {
    this.store.index.put([...scopeKey(scope), MARKER], true);
  }

  private entry(scope: Scope, tag: string, entity: Entity): Key {
    return [...this.prefix(scope, tag), entity.created_at, entity.memory_entity_id];
  }

  private tag(dataKey: Buffer, folded: string): string {
    let nameKey = this.nameKeys.get(dataKey);
    if (!nameKey) {
      // A key of its own for the index (the data key itself seals records), derived by HMAC as a PRF.
      nameKey = createHmac('sha256', dataKey).update('engram-entity-name-v1').digest();
      this.nameKeys.set(dataKey, nameKey);
    }
    return createHmac('sha256', nameKey).update(folded, 'utf8').digest().subarray(0, TAG_BYTES).toString('base64url');
  }
}

/** Marks an owner whose entities are all in the name index. */
const MARKER = 'e_name_all';

const owner = (scope: Scope): [string, string, string] => scopeKey(scope) as [string, string, string];
