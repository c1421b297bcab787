import type { Database, RangeOptions } from 'lmdb';
import type { OwnerKeys } from './owner-keys.js';
import { isSealed, keyAad, openRecord, sealRecord, sealRecordTransient } from './sealed.js';

/** A record's LMDB key (as `Key` in lmdb.ts, which builds this class). */
type Key = Array<string | number>;

/**
 * Record kinds that hold an owner's content, sealed under the owner's data key when encryption is on:
 * entities, relationships, facts, documents, passages (text and vector), staged media, media bytes. The
 * rest (passage label lists, counters, cursors) and every index entry hold ids, numbers and timestamps (the
 * entity name index, keyed digests of names: src/store/entity-names.ts).
 */
export const CONTENT_KINDS: ReadonlySet<string> = new Set(['ent', 'rel', 'fact', 'doc', 'psg', 'pending', 'blob']);

/**
 * The owners' records (`[tenant, partition, entity, kind, id] → record`), read and written in clear or
 * sealed. Reads take both forms: a store written before encryption at rest, or with it off, still reads.
 * Writes of a content kind are sealed when `encrypt` is on (CONTENT_ENCRYPTION), under the owner's data
 * key, allocated on the owner's first sealed write.
 */
export class ContentRecords {
  constructor(
    readonly db: Database<unknown, Key>,
    readonly keys: OwnerKeys,
    readonly encrypt: boolean,
  ) {}

  get<T>(key: Key): T | undefined {
    return this.open(key, this.db.get(key)) as T | undefined;
  }

  /**
   * Queues the record (or writes it, inside a transaction), sealed for a content kind when encryption is
   * on; the promise settles with the commit, as lmdb-js's own `put`.
   */
  put(key: Key, record: unknown): Promise<boolean> {
    // lmdb-js copies the value as the put is issued: it is sealed into a buffer the next seal reuses.
    if (this.encrypt && CONTENT_KINDS.has(key[3] as string)) return this.db.put(key, sealRecordTransient(this.keys.keyFor(ownerOf(key)), key, record));
    return this.db.put(key, record);
  }

  /** The records of a key range, opened. */
  *range(options: RangeOptions): Generator<{ key: Key; value: unknown }> {
    for (const { key, value } of this.db.getRange(options)) yield { key: key as Key, value: this.open(key as Key, value) };
  }

  /** A stored value as its record; throws when it is sealed and its owner's key is gone or does not open it. */
  open(key: Key, value: unknown): unknown {
    if (!isSealed(value)) return value;
    const record = this.openOwned(key, value);
    if (record === undefined) throw new Error('the record is sealed under a data key that was destroyed');
    return record;
  }

  /**
   * Seals a value kept under an owner's key prefix (`[tenant, partition, entity, ...]`) when encryption is
   * on, whatever follows the prefix: for stores of owner content outside the records (kept answers).
   */
  sealOwned(key: Key, value: unknown): unknown {
    return this.encrypt ? sealRecord(this.keys.keyFor(ownerOf(key)), keyAad(key), value) : value;
  }

  /** `sealOwned`'s value opened, or in clear as it was written; undefined when its owner's key is destroyed. */
  openOwned(key: Key, value: unknown): unknown {
    if (!isSealed(value)) return value;
    const dataKey = this.keys.existing(ownerOf(key));
    return dataKey && openRecord(dataKey, keyAad(key), value);
  }
}

function ownerOf(key: Key): [string, string, string] {
  return [key[0] as string, key[1] as string, key[2] as string];
}
