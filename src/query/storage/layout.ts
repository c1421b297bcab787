import type { Database } from 'lmdb';
import type { StoredDocument } from '../../domain/documents.js';
import type { FieldType } from '../schema/types.js';
import type { Key, Store } from '../../store/lmdb.js';

/**
 * Layout of the field indexes (two named databases, keys tenant first):
 *
 * - `field_bin` (raw bytes)
 *   - `[t, 'p', ver, value, seg]` → posting container: documents of segment `seg` holding `value`
 *   - `[t, 's', ver, 'e' | 'm', seg]` → `exists` / `mismatch` containers; `[t, 's', '_live', 'e', seg]` → live documents
 *   - `[t, 'c', ver, chunk]` → column of a numeric field: Float64Array of CHUNK_SIZE, NaN = missing
 *   - `[t, 'c', ver, chunk]` → column of a string field: CHUNK_SIZE dictionary codes (`string-chunk.ts`)
 *   - `[t, 'z', ver, seg]` → zone map of a numeric column: each chunk's minimum and maximum (`zones.ts`)
 * - `field_meta` (msgpack)
 *   - `[t, 'c', ver, chunk]` → column of a string_list field: array of STR_CHUNK_SIZE, null = missing. String
 *     fields had this form too before issue 16; such a chunk is still read, and rewritten coded on a write
 *   - `[t, 'n']` → next document number; `[t, 'd', partition, entity_id, doc_id]` → document number
 *   - `[t, 'f', partition_scope, name]` → field record; `[t, 'v']` → next field version number
 *   - `[t, 'gc', ver]` → a retired version whose entries are still being deleted
 *   - `[t, 'i']` → whether the tenant's indexes are kept (`tenant-state.ts`)
 *   - `[t, 'g']` → the tenant's index generation, stored anew by every change (`generation.ts`)
 *
 * `ver` names one definition of a field: `b.<name>` for built-ins, `f<n>` for declarations; a
 * re-declaration gets a new `ver`, so its backfill builds beside the old one. Containers are encoded
 * by `docset.ts`.
 */
export const CHUNK_SHIFT = 10;
export const CHUNK_SIZE = 1 << CHUNK_SHIFT;
/** String columns use smaller chunks: a write re-encodes its whole chunk (msgpack), a numeric one just copies 8 KiB. */
export const STR_CHUNK_SHIFT = 7;
export const STR_CHUNK_SIZE = 1 << STR_CHUNK_SHIFT;

/** How a column stores its values: Float64 chunks, dictionary-coded string chunks, or msgpack list chunks. */
export type ColumnForm = 'numeric' | 'string' | 'list';

export function columnForm(type: FieldType): ColumnForm {
  return type === 'string' ? 'string' : type === 'string_list' ? 'list' : 'numeric';
}

export const chunkShift = (form: ColumnForm) => (form === 'list' ? STR_CHUNK_SHIFT : CHUNK_SHIFT);

/**
 * Versions kept without postings: the built-in timestamps, whose values are (nearly) unique per document,
 * so their postings were two LMDB entries per document, written on every insert, where the column and
 * its zone map (`zones.ts`) answer the same filters and sorts exactly: a range or an equality reads the
 * chunks whose [min, max] meets it, a sort visits chunks best first and stops. Stores written before
 * hold postings for them; nothing reads those, and a write that changes a value removes the old one.
 */
const COLUMN_ONLY = new Set(['b.created_at', 'b.updated_at']);

export const hasPostings = (ver: string): boolean => !COLUMN_ONLY.has(ver);

/** Sorts after every value part (numbers and UTF-8 strings). */
export const KEY_TOP = '\u{10ffff}\u{10ffff}';
/** The version of the live-documents set. */
export const LIVE_VER = '_live';
/** Hidden built-in: the read ACL, so queries drop documents the caller may not read. */
export const READERS_VER = 'b._readers';

export interface IndexDb {
  bin: Database<Buffer, Key>;
  /** Records of several shapes (field records, document numbers, counts, gc marks); each reader names the shape it wrote. */
  meta: Database<unknown, Key>;
}

/** The two databases of the field indexes in the store's environment (any thread of the process may open them). */
export function openIndexDb(store: Pick<Store, 'env'>): IndexDb {
  return {
    bin: store.env.openDB<Buffer, Key>({ name: 'field_bin', encoding: 'binary' }),
    meta: store.env.openDB<unknown, Key>({ name: 'field_meta' }),
  };
}

/** Numeric types (int, float, bool, datetime) keep Float64 columns. */
export function isNumericType(type: FieldType): boolean {
  return type !== 'string' && type !== 'string_list';
}

// --- the long-string key rule ---

/** Longest string kept whole in a key (LMDB keys are at most ~1.9 KB). */
export const KEY_STR_MAX = 256;

/**
 * A value as posting keys hold it: a string longer than KEY_STR_MAX is cut to that length, so several
 * long values share one key. Range bounds are cut the same way, so a walk covers a superset.
 */
export function keyValue<T extends string | number>(v: T): T {
  return (typeof v === 'string' && v.length > KEY_STR_MAX ? v.slice(0, KEY_STR_MAX) : v) as T;
}

/**
 * Whether a key value (or a literal) may stand for several values: its documents cannot be judged by the
 * key and are re-checked against the column, and ties under it are ordered by the full values.
 */
export function mayBeCut(v: string | number): boolean {
  return typeof v === 'string' && v.length >= KEY_STR_MAX;
}

// --- keys ---

export const postingKey = (t: string, ver: string, v: string | number, seg: number): Key => [t, 'p', ver, keyValue(v), seg];
/** All segments of one value's posting, or (without a value) every posting of the version. */
export const postingPrefix = (t: string, ver: string, v?: string | number): Key => (v === undefined ? [t, 'p', ver] : [t, 'p', ver, keyValue(v)]);
export const setKey = (t: string, ver: string, name: 'e' | 'm', seg: number): Key => [t, 's', ver, name, seg];
export const setPrefix = (t: string, ver: string, name: 'e' | 'm'): Key => [t, 's', ver, name];
export const columnKey = (t: string, ver: string, chunk: number): Key => [t, 'c', ver, chunk];
export const zoneKey = (t: string, ver: string, seg: number): Key => [t, 'z', ver, seg];
/** Every entry a version owns, per database (what `collect` deletes). */
export const versionPrefixes = (t: string, ver: string): { bin: Key[]; meta: Key[] } => ({
  bin: [[t, 'p', ver], [t, 's', ver], [t, 'c', ver], [t, 'z', ver]],
  meta: [[t, 'c', ver]],
});

export const nextDocNoKey = (t: string): Key => [t, 'n'];
export const docNoKey = (doc: Pick<StoredDocument, 'tenant' | 'partition' | 'entity_id' | 'doc_id'>): Key => [doc.tenant, 'd', doc.partition ?? '', doc.entity_id, doc.doc_id];
export const fieldKey = (t: string, scope: string | null, name: string): Key => [t, 'f', scope ?? '', name];
/** Field records of a tenant (scope undefined), or of one partition scope (null: the tenant-wide ones). */
export const fieldPrefix = (t: string, scope?: string | null): Key => (scope === undefined ? [t, 'f'] : [t, 'f', scope ?? '']);
export const nextVersionKey = (t: string): Key => [t, 'v'];
export const tenantStateKey = (t: string): Key => [t, 'i'];
export const generationKey = (t: string): Key => [t, 'g'];
export const retiredKey = (t: string, ver: string): Key => [t, 'gc', ver];
export const retiredPrefix = (t: string): Key => [t, 'gc'];
