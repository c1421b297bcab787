import type { Database } from 'lmdb';
import type { DocValue } from '../domain/query/types.js';
import type { FieldType } from '../domain/schema/types.js';
import { decodeContainer, encodeContainer, SEG_SHIFT, SEG_SIZE } from './fields-bitset.js';
import type { Key, Store } from './lmdb.js';

/**
 * Layout of the field indexes (two named databases, keys tenant first):
 *
 * - `field_bin` (raw bytes)
 *   - `[t, 'p', ver, value, seg]` → posting container: documents of segment `seg` holding `value`
 *   - `[t, 's', ver, 'e' | 'm', seg]` → `exists` / `mismatch` containers; `[t, 's', '_live', 'e', seg]` → live documents
 *   - `[t, 'c', ver, chunk]` → column of a numeric field: Float64Array of CHUNK_SIZE, NaN = missing
 * - `field_meta` (msgpack)
 *   - `[t, 'c', ver, chunk]` → column of a string / string_list field: array, null = missing
 *   - `[t, 'n']` → next document number; `[t, 'd', partition, entity_id, doc_id]` → document number
 *   - `[t, 'f', partition_scope, name]` → field record; `[t, 'v']` → next field version number
 *
 * `ver` names one definition of a field: `b.<name>` for built-ins, `f<n>` for declarations; a
 * re-declaration gets a new `ver`, so its backfill builds beside the old one.
 */
export const CHUNK_SHIFT = 10;
export const CHUNK_SIZE = 1 << CHUNK_SHIFT;
/** Longest string kept whole in a key (LMDB keys are at most ~1.9 KB); longer values are re-checked. */
export const KEY_STR_MAX = 256;
/** Sorts after every value part (numbers and UTF-8 strings). */
export const KEY_TOP = '\u{10ffff}\u{10ffff}';
export const LIVE_VER = '_live';

export type ColumnArray = Float64Array | DocValue[];

export interface FieldDb {
  bin: Database<Buffer, Key>;
  meta: Database<any, Key>;
}

export function openFieldDb(store: Store): FieldDb {
  return {
    bin: store.env.openDB<Buffer, Key>({ name: 'field_bin', encoding: 'binary' }),
    meta: store.env.openDB<any, Key>({ name: 'field_meta' }),
  };
}

export function isNumericType(type: FieldType): boolean {
  return type !== 'string' && type !== 'string_list';
}

export function keyValue(v: string | number): string | number {
  return typeof v === 'string' && v.length > KEY_STR_MAX ? v.slice(0, KEY_STR_MAX) : v;
}

export const postingKey = (t: string, ver: string, v: string | number, seg: number): Key => [t, 'p', ver, keyValue(v), seg];
export const setKey = (t: string, ver: string, name: 'e' | 'm', seg: number): Key => [t, 's', ver, name, seg];
export const columnKey = (t: string, ver: string, chunk: number): Key => [t, 'c', ver, chunk];

/**
 * Read-modify-write buffer for one LMDB write transaction: containers and column chunks are read once,
 * changed in memory and written once by `flush`. Must be created and flushed inside the transaction
 * callback, so every read-modify-write of tenant-wide structures sees the transaction's own state.
 */
export class WriteBatch {
  private readonly containers = new Map<string, { key: Key; words: Uint32Array }>();
  private readonly columns = new Map<string, { key: Key; numeric: boolean; data: ColumnArray }>();

  constructor(private readonly db: FieldDb) {}

  setBit(key: Key, docNo: number, present: boolean): void {
    const words = this.container(key);
    const low = docNo & (SEG_SIZE - 1);
    if (present) words[low >>> 5]! |= 1 << (low & 31);
    else words[low >>> 5]! &= ~(1 << (low & 31));
  }

  hasBit(key: Key, docNo: number): boolean {
    const low = docNo & (SEG_SIZE - 1);
    return (this.container(key)[low >>> 5]! & (1 << (low & 31))) !== 0;
  }

  getValue(t: string, ver: string, numeric: boolean, docNo: number): DocValue {
    const data = this.column(t, ver, numeric, docNo >>> CHUNK_SHIFT);
    const at = docNo & (CHUNK_SIZE - 1);
    if (numeric) {
      const n = (data as Float64Array)[at]!;
      return Number.isNaN(n) ? null : n;
    }
    return (data as DocValue[])[at] ?? null;
  }

  setValue(t: string, ver: string, numeric: boolean, docNo: number, value: DocValue): void {
    const data = this.column(t, ver, numeric, docNo >>> CHUNK_SHIFT);
    const at = docNo & (CHUNK_SIZE - 1);
    if (numeric) (data as Float64Array)[at] = value === null ? NaN : (value as number);
    else (data as DocValue[])[at] = value;
  }

  flush(): void {
    for (const { key, words } of this.containers.values()) {
      const bytes = encodeContainer(words);
      if (bytes) this.db.bin.put(key, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
      else this.db.bin.remove(key);
    }
    for (const { key, numeric, data } of this.columns.values()) {
      if (numeric) {
        const f = data as Float64Array;
        if (f.every(Number.isNaN)) this.db.bin.remove(key);
        else this.db.bin.put(key, Buffer.from(f.buffer, f.byteOffset, f.byteLength));
      } else {
        const a = data as DocValue[];
        if (a.every((v) => v === null)) this.db.meta.remove(key);
        else this.db.meta.put(key, a);
      }
    }
    this.containers.clear();
    this.columns.clear();
  }

  private container(key: Key): Uint32Array {
    const id = cacheId(key);
    let entry = this.containers.get(id);
    if (!entry) {
      const stored = this.db.bin.get(key);
      entry = { key, words: stored ? decodeContainer(stored) : new Uint32Array(SEG_SIZE >>> 5) };
      this.containers.set(id, entry);
    }
    return entry.words;
  }

  private column(t: string, ver: string, numeric: boolean, chunk: number): ColumnArray {
    const key = columnKey(t, ver, chunk);
    const id = cacheId(key);
    let entry = this.columns.get(id);
    if (!entry) {
      entry = { key, numeric, data: numeric ? readNumericChunk(this.db, key) : readStringChunk(this.db, key) };
      this.columns.set(id, entry);
    }
    return entry.data;
  }
}

function cacheId(key: Key): string {
  let id = '';
  for (const part of key) id += (typeof part === 'number' ? '#' : '$') + String(part) + '\u0001';
  return id;
}

export function readNumericChunk(db: FieldDb, key: Key): Float64Array {
  const stored = db.bin.get(key);
  if (!stored) return new Float64Array(CHUNK_SIZE).fill(NaN);
  return new Float64Array(new Uint8Array(stored).buffer);
}

export function readStringChunk(db: FieldDb, key: Key): DocValue[] {
  const stored = db.meta.get(key) as DocValue[] | undefined;
  return stored ? [...stored] : new Array<DocValue>(CHUNK_SIZE).fill(null);
}

export { SEG_SHIFT };
