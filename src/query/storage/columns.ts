import type { DocValue } from '../plan/types.js';
import type { Key } from '../../store/lmdb.js';
import { CHUNK_SIZE, STR_CHUNK_SIZE, type IndexDb } from './layout.js';

/** One chunk of a column, or the values of a column gathered for some documents. */
export type ColumnArray = Float64Array | DocValue[];

/** A numeric chunk (a fresh copy; NaN = missing); an absent chunk reads as all missing. */
export function readNumericChunk(db: IndexDb, key: Key): Float64Array {
  const stored = db.bin.get(key);
  if (!stored) return new Float64Array(CHUNK_SIZE).fill(NaN);
  return new Float64Array(new Uint8Array(stored).buffer);
}

/** A string chunk (a fresh copy, writable); an absent chunk reads as all missing. */
export function readStringChunk(db: IndexDb, key: Key): DocValue[] {
  const stored = db.meta.get(key) as DocValue[] | undefined;
  return stored ? [...stored] : new Array<DocValue>(STR_CHUNK_SIZE).fill(null);
}

/** The `i`-th value of a column array, NaN and absent read as missing (null). */
export function valueAt(column: ColumnArray, i: number): DocValue {
  if (column instanceof Float64Array) {
    const n = column[i]!;
    return Number.isNaN(n) ? null : n;
  }
  return column[i] ?? null;
}
