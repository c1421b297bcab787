import type { DocValue } from '../plan/types.js';
import { SEG_SIZE, type DocSet } from './docset.js';
import {
  CHUNK_SHIFT,
  CHUNK_SIZE,
  STR_CHUNK_SHIFT,
  STR_CHUNK_SIZE,
  columnKey,
  KEY_STR_MAX,
  KEY_TOP,
  LIVE_VER,
  readNumericChunk,
  type FieldDb,
} from './layout.js';
import type { Key } from '../../store/lmdb.js';

const WORDS = SEG_SIZE >>> 5;

/** ORs one stored container into a document set without an intermediate bitset. */
export function orContainer(set: DocSet, seg: number, bytes: Uint8Array): void {
  let words = set.get(seg);
  if (!words) set.set(seg, (words = new Uint32Array(WORDS)));
  if (bytes.byteLength === WORDS * 4) {
    const src = new Uint32Array(new Uint8Array(bytes).buffer);
    for (let i = 0; i < WORDS; i++) words[i]! |= src[i]!;
    return;
  }
  for (let i = 0; i + 1 < bytes.byteLength; i += 2) {
    const low = bytes[i]! | (bytes[i + 1]! << 8);
    words[low >>> 5]! |= 1 << (low & 31);
  }
}

/** Read side of the field indexes: sets, postings and columns of the latest committed snapshot. */
export class FieldReader {
  /** Posting entries read by the last operations; the bench reports it as "candidates touched". */
  touched = 0;

  constructor(private readonly db: FieldDb) {}

  liveSet(t: string): DocSet {
    return this.set(t, LIVE_VER, 'e');
  }

  set(t: string, ver: string, name: 'e' | 'm'): DocSet {
    const out: DocSet = new Map();
    const prefix: Key = [t, 's', ver, name];
    for (const { key, value } of this.db.bin.getRange({ start: prefix, end: [...prefix, KEY_TOP] })) {
      orContainer(out, key[4] as number, value);
      this.touched++;
    }
    return out;
  }

  /** Documents holding exactly `value` (for a shortened key: a superset, flagged by `long`). */
  posting(t: string, ver: string, value: string | number): DocSet {
    const out: DocSet = new Map();
    const v = typeof value === 'string' && value.length > KEY_STR_MAX ? value.slice(0, KEY_STR_MAX) : value;
    const prefix: Key = [t, 'p', ver, v];
    for (const { key, value: bytes } of this.db.bin.getRange({ start: prefix, end: [...prefix, KEY_TOP] })) {
      orContainer(out, key[4] as number, bytes);
      this.touched++;
    }
    return out;
  }

  /**
   * Walks posting entries of a version in value order (between optional bounds, inclusive; callers
   * drop excluded ends). Yields each entry's value, segment and container.
   */
  *postings(
    t: string,
    ver: string,
    options: { from?: string | number; to?: string | number; reverse?: boolean } = {},
  ): Generator<{ value: string | number; seg: number; bytes: Uint8Array }> {
    const low: Key = options.from === undefined ? [t, 'p', ver] : [t, 'p', ver, options.from];
    const high: Key = options.to === undefined ? [t, 'p', ver, KEY_TOP] : [t, 'p', ver, options.to, KEY_TOP];
    const range = options.reverse ? { start: high, end: low, reverse: true } : { start: low, end: high };
    for (const { key, value } of this.db.bin.getRange(range)) {
      this.touched++;
      yield { value: key[3] as string | number, seg: key[4] as number, bytes: value };
    }
  }

  /** Values of one field for ascending document numbers (numeric: NaN = missing). */
  numericColumn(t: string, ver: string, docs: Uint32Array): Float64Array {
    const out = new Float64Array(docs.length);
    let chunkNo = -1;
    let chunk: Float64Array | null = null;
    for (let i = 0; i < docs.length; i++) {
      const d = docs[i]!;
      if (d >>> CHUNK_SHIFT !== chunkNo) {
        chunkNo = d >>> CHUNK_SHIFT;
        chunk = readNumericChunk(this.db, columnKey(t, ver, chunkNo));
      }
      out[i] = chunk![d & (CHUNK_SIZE - 1)]!;
    }
    return out;
  }

  stringColumn(t: string, ver: string, docs: Uint32Array): DocValue[] {
    const out = new Array<DocValue>(docs.length);
    let chunkNo = -1;
    let chunk: DocValue[] | undefined;
    for (let i = 0; i < docs.length; i++) {
      const d = docs[i]!;
      if (d >>> STR_CHUNK_SHIFT !== chunkNo) {
        chunkNo = d >>> STR_CHUNK_SHIFT;
        chunk = this.db.meta.get(columnKey(t, ver, chunkNo)) as DocValue[] | undefined;
      }
      out[i] = chunk?.[d & (STR_CHUNK_SIZE - 1)] ?? null;
    }
    return out;
  }

  private readonly chunkCache = new Map<string, Float64Array | DocValue[] | undefined>();

  /** One document's value (random access for tie-breaks and re-checks; chunks cached per reader). */
  value(t: string, ver: string, numeric: boolean, docNo: number): DocValue {
    const shift = numeric ? CHUNK_SHIFT : STR_CHUNK_SHIFT;
    const chunkNo = docNo >>> shift;
    const id = `${ver}\u0001${chunkNo}`;
    let chunk = this.chunkCache.get(id);
    if (!this.chunkCache.has(id)) {
      const key = columnKey(t, ver, chunkNo);
      chunk = numeric ? readNumericChunk(this.db, key) : (this.db.meta.get(key) as DocValue[] | undefined);
      this.chunkCache.set(id, chunk);
    }
    const v = chunk?.[docNo & ((1 << shift) - 1)];
    if (v === undefined || v === null) return null;
    return typeof v === 'number' && Number.isNaN(v) ? null : v;
  }
}
