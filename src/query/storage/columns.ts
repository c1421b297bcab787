import type { DocValue } from '../plan/types.js';
import type { Key } from '../../store/lmdb.js';
import { CHUNK_SHIFT, CHUNK_SIZE, columnKey, STR_CHUNK_SHIFT, STR_CHUNK_SIZE, type IndexDb } from './layout.js';
import { decodeStringChunk, StringChunk } from './string-chunk.js';

/** The values of a column gathered for some documents (numeric: NaN = missing). */
export type ColumnArray = Float64Array | DocValue[];

/**
 * A value in LMDB's read buffer, which the next read reuses: callers copy what they keep at once (so a
 * chunk is copied once, not twice as with `get`). The buffer is larger than the value: lmdb-js only sets
 * its `length`, hence the view.
 */
export function readFast(db: IndexDb, key: Key): Uint8Array | undefined {
  const stored = db.bin.getBinaryFast(key);
  return stored?.subarray(0, stored.length);
}

/** A numeric chunk (copied into `out`, by default a fresh array; NaN = missing); an absent chunk reads as all missing. */
export function readNumericChunk(db: IndexDb, key: Key, out: Float64Array = new Float64Array(CHUNK_SIZE)): Float64Array {
  return copiedChunk(readFast(db, key), out);
}

/** `stored` (a numeric chunk's bytes, or undefined when absent) copied into `out`. */
function copiedChunk(stored: Uint8Array | undefined, out: Float64Array = new Float64Array(CHUNK_SIZE)): Float64Array {
  if (stored) new Uint8Array(out.buffer).set(stored);
  else out.fill(NaN);
  return out;
}

/** What an absent numeric chunk reads as when borrowed: all missing, shared, never written. */
const ALL_MISSING = new Float64Array(CHUNK_SIZE).fill(NaN);
/** The last borrowed view, kept while LMDB reads into the same buffer at the same offset (it does until it grows it). */
let borrowed: Float64Array | null = null;

/**
 * A numeric chunk without a copy: a view of LMDB's read buffer, valid only until the next read of any
 * database of the store (which overwrites it), and never to be written. For a loop that reads a chunk
 * and is done with it before it reads anything else: the copy was a third of a chunk read's cost, and
 * an aggregation over a million documents reads a thousand chunks per field. A chunk the view cannot
 * show (unaligned, or not a whole chunk) is copied.
 */
export function borrowNumericChunk(db: IndexDb, key: Key): Float64Array {
  const stored = db.bin.getBinaryFast(key);
  if (stored === undefined) return ALL_MISSING;
  if (stored.length !== CHUNK_SIZE * Float64Array.BYTES_PER_ELEMENT || stored.byteOffset % Float64Array.BYTES_PER_ELEMENT !== 0) {
    return copiedChunk(stored);
  }
  if (borrowed === null || borrowed.buffer !== stored.buffer || borrowed.byteOffset !== stored.byteOffset) {
    borrowed = new Float64Array(stored.buffer, stored.byteOffset, CHUNK_SIZE);
  }
  return borrowed;
}

/** A string_list chunk (a fresh copy, writable); an absent chunk reads as all missing. */
export function readListChunk(db: IndexDb, key: Key): DocValue[] {
  const stored = db.meta.get(key) as DocValue[] | undefined;
  return stored ? [...stored] : new Array<DocValue>(STR_CHUNK_SIZE).fill(null);
}

/** Legacy chunks per string chunk: string fields written before issue 16 kept msgpack chunks of STR_CHUNK_SIZE. */
const LEGACY_PER_CHUNK = 1 << (CHUNK_SHIFT - STR_CHUNK_SHIFT);

/** Keys of the legacy (msgpack) chunks that string chunk `chunkNo` replaces. */
export function legacyStringKeys(t: string, ver: string, chunkNo: number): Key[] {
  return Array.from({ length: LEGACY_PER_CHUNK }, (_, j) => columnKey(t, ver, chunkNo * LEGACY_PER_CHUNK + j));
}

/**
 * A string chunk (fresh, writable): the coded one, or else one built from the legacy chunks it replaces
 * (`legacy` then says so, for the writer to delete them when it writes the coded one). With `previous`
 * (the same field's last chunk), an unchanged dictionary is not decoded again (`decodeStringChunk`).
 */
export function readStringChunk(db: IndexDb, t: string, ver: string, chunkNo: number, previous?: StringChunk): { chunk: StringChunk; legacy: boolean } {
  const stored = readFast(db, columnKey(t, ver, chunkNo));
  if (stored) return { chunk: decodeStringChunk(stored, previous), legacy: false };
  const chunk = StringChunk.empty();
  let legacy = false;
  legacyStringKeys(t, ver, chunkNo).forEach((key, j) => {
    const values = db.meta.get(key) as Array<string | null> | undefined;
    if (!values) return;
    legacy = true;
    for (let i = 0; i < values.length; i++) chunk.set(j * STR_CHUNK_SIZE + i, values[i] ?? null);
  });
  return { chunk, legacy };
}

/** The `i`-th value of a column array, NaN and absent read as missing (null). */
export function valueAt(column: ColumnArray, i: number): DocValue {
  if (column instanceof Float64Array) {
    const n = column[i]!;
    return Number.isNaN(n) ? null : n;
  }
  return column[i] ?? null;
}
