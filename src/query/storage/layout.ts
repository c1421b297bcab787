import type { Database } from 'lmdb';
import type { DocValue } from '../plan/types.js';
import type { FieldType } from '../schema/types.js';
import { decodeContainer, encodeContainer, SEG_SHIFT, SEG_SIZE } from './docset.js';
import type { Key, Store } from '../../store/lmdb.js';

/**
 * Layout of the field indexes (two named databases, keys tenant first):
 *
 * - `field_bin` (raw bytes)
 *   - `[t, 'p', ver, value, seg]` → posting container: documents of segment `seg` holding `value`
 *   - `[t, 's', ver, 'e' | 'm', seg]` → `exists` / `mismatch` containers; `[t, 's', '_live', 'e', seg]` → live documents
 *   - `[t, 'c', ver, chunk]` → column of a numeric field: Float64Array of CHUNK_SIZE, NaN = missing
 * - `field_meta` (msgpack)
 *   - `[t, 'c', ver, chunk]` → column of a string / string_list field: array of STR_CHUNK_SIZE, null = missing
 *   - `[t, 'n']` → next document number; `[t, 'd', partition, entity_id, doc_id]` → document number
 *   - `[t, 'f', partition_scope, name]` → field record; `[t, 'v']` → next field version number
 *
 * `ver` names one definition of a field: `b.<name>` for built-ins, `f<n>` for declarations; a
 * re-declaration gets a new `ver`, so its backfill builds beside the old one.
 */
export const CHUNK_SHIFT = 10;
export const CHUNK_SIZE = 1 << CHUNK_SHIFT;
/** String columns use smaller chunks: a write re-encodes its whole chunk (msgpack), a numeric one just copies 8 KiB. */
export const STR_CHUNK_SHIFT = 7;
export const STR_CHUNK_SIZE = 1 << STR_CHUNK_SHIFT;

export const chunkShift = (numeric: boolean) => (numeric ? CHUNK_SHIFT : STR_CHUNK_SHIFT);
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
  private readonly containers = new Map<string, ContainerDelta>();
  private readonly columns = new Map<string, { key: Key; numeric: boolean; data: ColumnArray }>();

  constructor(private readonly db: FieldDb) {}

  setBit(key: Key, docNo: number, present: boolean): void {
    this.container(key).delta.set(docNo & (SEG_SIZE - 1), present);
  }

  hasBit(key: Key, docNo: number): boolean {
    const entry = this.container(key);
    const low = docNo & (SEG_SIZE - 1);
    const changed = entry.delta.get(low);
    if (changed !== undefined) return changed;
    entry.stored ??= this.db.bin.get(key) ?? null;
    return entry.stored !== null && containerHas(entry.stored, low);
  }

  getValue(t: string, ver: string, numeric: boolean, docNo: number): DocValue {
    const shift = chunkShift(numeric);
    const data = this.column(t, ver, numeric, docNo >>> shift);
    const at = docNo & ((1 << shift) - 1);
    if (numeric) {
      const n = (data as Float64Array)[at]!;
      return Number.isNaN(n) ? null : n;
    }
    return (data as DocValue[])[at] ?? null;
  }

  setValue(t: string, ver: string, numeric: boolean, docNo: number, value: DocValue): void {
    const shift = chunkShift(numeric);
    const data = this.column(t, ver, numeric, docNo >>> shift);
    const at = docNo & ((1 << shift) - 1);
    if (numeric) (data as Float64Array)[at] = value === null ? NaN : (value as number);
    else (data as DocValue[])[at] = value;
  }

  flush(): void {
    for (const entry of this.containers.values()) {
      if (entry.delta.size === 0) continue;
      const stored = entry.stored !== undefined ? entry.stored : (this.db.bin.get(entry.key) ?? null);
      const bytes = applyDelta(stored, entry.delta);
      if (bytes) this.db.bin.put(entry.key, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
      else if (stored) this.db.bin.remove(entry.key);
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

  private container(key: Key): ContainerDelta {
    const id = cacheId(key);
    let entry = this.containers.get(id);
    if (!entry) this.containers.set(id, (entry = { key, stored: undefined, delta: new Map() }));
    return entry;
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

/** Pending bit changes of one container; `stored` is read lazily (undefined: not read yet). */
interface ContainerDelta {
  key: Key;
  stored: Uint8Array | null | undefined;
  delta: Map<number, boolean>;
}

const ARRAY_MAX = 4095;

function containerHas(bytes: Uint8Array, low: number): boolean {
  if (bytes.byteLength === SEG_SIZE >>> 3) return (bytes[low >>> 3]! & (1 << (low & 7))) !== 0;
  let lo = 0;
  let hi = (bytes.byteLength >>> 1) - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = bytes[mid * 2]! | (bytes[mid * 2 + 1]! << 8);
    if (v === low) return true;
    if (v < low) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

/**
 * Applies bit changes to a stored container by merging sorted lists (no 8 KiB bitset while the
 * container stays an array), so a single document's write costs O(container length).
 */
function applyDelta(stored: Uint8Array | null, delta: Map<number, boolean>): Uint8Array | null {
  if (stored !== null && stored.byteLength === SEG_SIZE >>> 3) {
    const words = decodeContainer(stored);
    let removed = false;
    for (const [low, present] of delta) {
      if (present) words[low >>> 5]! |= 1 << (low & 31);
      else {
        words[low >>> 5]! &= ~(1 << (low & 31));
        removed = true;
      }
    }
    // Only additions: it stays above the array limit, so skip counting and keep the bitset.
    return removed ? encodeContainer(words) : new Uint8Array(words.buffer);
  }
  const n = stored ? stored.byteLength >>> 1 : 0;
  const changes = [...delta.keys()].sort((a, b) => a - b);
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < changes.length) {
    const s = i < n ? stored![i * 2]! | (stored![i * 2 + 1]! << 8) : Infinity;
    const c = j < changes.length ? changes[j]! : Infinity;
    if (s < c) {
      out.push(s);
      i++;
    } else {
      if (delta.get(c)) out.push(c);
      if (s === c) i++;
      j++;
    }
  }
  if (out.length === 0) return null;
  if (out.length > ARRAY_MAX) {
    const words = new Uint32Array(SEG_SIZE >>> 5);
    for (const low of out) words[low >>> 5]! |= 1 << (low & 31);
    return encodeContainer(words);
  }
  const bytes = new Uint8Array(out.length * 2);
  for (let k = 0; k < out.length; k++) {
    bytes[k * 2] = out[k]! & 0xff;
    bytes[k * 2 + 1] = out[k]! >>> 8;
  }
  return bytes;
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
  return stored ? [...stored] : new Array<DocValue>(STR_CHUNK_SIZE).fill(null);
}

export { SEG_SHIFT };
