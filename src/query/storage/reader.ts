import type { DocValue } from '../plan/types.js';
import type { Key } from '../../store/lmdb.js';
import { borrowNumericChunk, readFast, readNumericChunk, readStringChunk } from './columns.js';
import { storedZones } from './zones.js';
import { generation } from './generation.js';
import { orContainer, type DocSet } from './docset.js';
import type { StringChunk } from './string-chunk.js';
import {
  CHUNK_SHIFT,
  CHUNK_SIZE,
  chunkShift,
  STR_CHUNK_SIZE,
  columnKey,
  type ColumnForm,
  KEY_TOP,
  LIVE_VER,
  postingPrefix,
  setPrefix,
  type IndexDb,
  zoneKey,
} from './layout.js';

/** Read side of the field indexes: sets, postings and columns of the latest committed snapshot. */
export class IndexReader {
  /** Posting entries read by the last operations; the bench reports it as "candidates touched". */
  touched = 0;

  constructor(private readonly db: IndexDb) {}

  /** The tenant's index generation in this thread's snapshot (`generation.ts`). */
  generation(t: string): string | undefined {
    return generation(this.db, t);
  }

  liveSet(t: string): DocSet {
    return this.set(t, LIVE_VER, 'e');
  }

  set(t: string, ver: string, name: 'e' | 'm'): DocSet {
    const out: DocSet = new Map();
    const prefix = setPrefix(t, ver, name);
    for (const { key, value } of this.db.bin.getRange({ start: prefix, end: [...prefix, KEY_TOP] })) {
      orContainer(out, key[4] as number, value);
      this.touched++;
    }
    return out;
  }

  /** Documents holding exactly `value` (a superset when the value may be cut in keys: see `mayBeCut`). */
  posting(t: string, ver: string, value: string | number): DocSet {
    const out: DocSet = new Map();
    const prefix = postingPrefix(t, ver, value);
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
    const prefix = postingPrefix(t, ver);
    const low: Key = options.from === undefined ? prefix : [...prefix, options.from];
    const high: Key = options.to === undefined ? [...prefix, KEY_TOP] : [...prefix, options.to, KEY_TOP];
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
        chunk = borrowNumericChunk(this.db, columnKey(t, ver, chunkNo)); // nothing else is read before the next chunk
      }
      out[i] = chunk![d & (CHUNK_SIZE - 1)]!;
    }
    return out;
  }

  private readonly zoneCache = new Map<string, Float64Array>();

  /** The zone map of segment `seg` of a numeric field (`zones.ts`), cached for the reader's operation. */
  zones(t: string, ver: string, seg: number): Float64Array {
    const id = `${ver}\u0001${seg}`;
    let zones = this.zoneCache.get(id);
    if (!zones) {
      this.zoneCache.set(id, (zones = storedZones(readFast(this.db, zoneKey(t, ver, seg)))));
    }
    return zones;
  }

  /**
   * Chunk `chunkNo` of a numeric field (NaN = missing), borrowed (`borrowNumericChunk`): read-only, and
   * valid only until this reader, or anything else, reads the store again.
   */
  borrowNumericChunk(t: string, ver: string, chunkNo: number): Float64Array {
    return borrowNumericChunk(this.db, columnKey(t, ver, chunkNo));
  }

  /**
   * Chunk `chunkNo` of a string field, coded (built from legacy chunks for a store written before issue
   * 16); `previous`, the field's chunk read before, lets an identical dictionary be reused.
   */
  stringChunk(t: string, ver: string, chunkNo: number, previous?: StringChunk): StringChunk {
    return readStringChunk(this.db, t, ver, chunkNo, previous).chunk;
  }

  /** Values of a string or string_list field for ascending document numbers (null = missing). */
  stringColumn(t: string, ver: string, form: Exclude<ColumnForm, 'numeric'>, docs: Uint32Array): DocValue[] {
    const out = new Array<DocValue>(docs.length);
    const shift = chunkShift(form);
    let chunkNo = -1;
    let chunk: StringChunk | DocValue[] | undefined;
    for (let i = 0; i < docs.length; i++) {
      const d = docs[i]!;
      if (d >>> shift !== chunkNo) {
        chunkNo = d >>> shift;
        chunk = form === 'string' ? this.stringChunk(t, ver, chunkNo) : (this.db.meta.get(columnKey(t, ver, chunkNo)) as DocValue[] | undefined);
      }
      out[i] = form === 'string' ? (chunk as StringChunk).get(d & (CHUNK_SIZE - 1)) : ((chunk as DocValue[] | undefined)?.[d & (STR_CHUNK_SIZE - 1)] ?? null);
    }
    return out;
  }

  private readonly chunkCache = new Map<string, Float64Array | StringChunk | DocValue[] | undefined>();

  /** One document's value (random access for tie-breaks and re-checks; chunks cached per reader). */
  value(t: string, ver: string, form: ColumnForm, docNo: number): DocValue {
    const shift = chunkShift(form);
    const chunkNo = docNo >>> shift;
    const id = `${ver}\u0001${chunkNo}`;
    let chunk = this.chunkCache.get(id);
    if (!this.chunkCache.has(id)) {
      const key = columnKey(t, ver, chunkNo);
      chunk = form === 'numeric' ? readNumericChunk(this.db, key) : form === 'string' ? this.stringChunk(t, ver, chunkNo) : (this.db.meta.get(key) as DocValue[] | undefined);
      this.chunkCache.set(id, chunk);
    }
    const at = docNo & ((1 << shift) - 1);
    const v = chunk === undefined || Array.isArray(chunk) || chunk instanceof Float64Array ? chunk?.[at] : chunk.get(at);
    if (v === undefined || v === null) return null;
    return typeof v === 'number' && Number.isNaN(v) ? null : v;
  }
}
