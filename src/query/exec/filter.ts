import { invalidInput } from '../../errors.js';
import { matchesLeaf } from '../plan/match.js';
import type { CompiledFilter, CompiledLeaf } from '../plan/types.js';
import { addDoc, and, andNot, cardinality, orContainer, orInto, toArray, type DocSet } from '../storage/docset.js';
import { columnForm, hasPostings, keyValue, mayBeCut, READERS_VER } from '../storage/layout.js';
import type { IndexReader } from '../storage/reader.js';
import { closedBounds, numericBounds, rangeFromColumn } from './column-range.js';
import { chunkHasMember, CHUNKS_PER_SEG } from '../storage/zones.js';

/** Who asks, and where: the tenant, the partition (null: all of the tenant's) and the principal. */
export interface QueryContext {
  tenant: string;
  partition: string | null;
  principal: string;
  /** Owners whose documents no query may see or count (being erased or imported). */
  hidden?: readonly HiddenOwner[];
}

/** An owner of the tenant that reads as nonexistent: its partition (null when none) and entity id. */
export interface HiddenOwner {
  partition: string | null;
  entityId: string;
}

/** The documents of the hidden owners, from the built-in entity_id and partition postings (never a scan). */
export function hiddenDocs(reader: IndexReader, t: string, hidden: readonly HiddenOwner[]): DocSet {
  const out: DocSet = new Map();
  const field = (name: 'entity_id' | 'partition') => ({ name, type: 'string' as const, ver: `b.${name}` });
  for (const owner of hidden) {
    const ofOwner = eqSet(reader, t, { kind: 'leaf', field: field('entity_id'), op: 'eq', value: owner.entityId }, owner.entityId);
    const inPartition =
      owner.partition === null
        ? andNot(ofOwner, reader.set(t, 'b.partition', 'e'))
        : and(ofOwner, eqSet(reader, t, { kind: 'leaf', field: field('partition'), op: 'eq', value: owner.partition }, owner.partition));
    orInto(out, inPartition);
  }
  return out;
}

/**
 * The documents a query considers: the live documents of the tenant, in the partition when one is
 * given, that the principal may read, narrowed by the filter. More than `maxScanned` is a 400.
 */
export function candidates(reader: IndexReader, ctx: QueryContext, filter: CompiledFilter | null, maxScanned: number): DocSet {
  let universe = reader.liveSet(ctx.tenant);
  if (ctx.partition !== null) universe = and(universe, reader.posting(ctx.tenant, 'b.partition', ctx.partition));
  const restricted = reader.set(ctx.tenant, READERS_VER, 'e');
  if (restricted.size > 0) universe = andNot(universe, andNot(restricted, reader.posting(ctx.tenant, READERS_VER, ctx.principal)));
  if (ctx.hidden?.length) universe = andNot(universe, hiddenDocs(reader, ctx.tenant, ctx.hidden));
  const matched = filter ? evaluateFilter(reader, ctx.tenant, filter, universe) : universe;
  const n = cardinality(matched);
  if (n > maxScanned) {
    throw invalidInput(`query matches ${n} documents, more than the candidate-scan cap of ${maxScanned}; narrow the filter or add a partition`);
  }
  return matched;
}

/**
 * Evaluates a compiled filter to the set of matching documents within `universe` (the live documents
 * the caller may read, in the query's partition). Leaves read postings, never every document:
 * eq/in/contains on lists are posting lookups, ranges and prefixes walk the ordered posting keys
 * between their bounds (a wide numeric range reads the universe's column chunks instead: `range`),
 * exists reads the exists set, not/neq complement within the universe.
 * `contains` on a string walks the field's distinct values (not its documents).
 */
export function evaluateFilter(reader: IndexReader, t: string, filter: CompiledFilter, universe: DocSet): DocSet {
  switch (filter.kind) {
    case 'and': {
      let acc = universe;
      for (const item of filter.items) acc = evaluateFilter(reader, t, item, acc);
      return acc;
    }
    case 'or': {
      const acc: DocSet = new Map();
      for (const item of filter.items) orInto(acc, evaluateFilter(reader, t, item, universe));
      return acc;
    }
    case 'not':
      return andNot(universe, evaluateFilter(reader, t, filter.item, universe));
    case 'leaf':
      return and(universe, evaluateLeaf(reader, t, filter, universe));
  }
}

function evaluateLeaf(reader: IndexReader, t: string, leaf: CompiledLeaf, universe: DocSet): DocSet {
  const ver = leaf.field.ver;
  if (!hasPostings(ver) && leaf.op !== 'exists') return columnLeaf(reader, t, leaf, universe);
  switch (leaf.op) {
    case 'exists':
      return leaf.value ? reader.set(t, ver, 'e') : andNot(reader.liveSet(t), reader.set(t, ver, 'e'));
    case 'neq':
      return andNot(reader.liveSet(t), eqSet(reader, t, leaf, leaf.value));
    case 'eq':
    case 'contains':
      if (leaf.op === 'contains' && leaf.field.type === 'string') return scan(reader, t, leaf, {})!;
      return eqSet(reader, t, leaf, leaf.value);
    case 'in': {
      const out: DocSet = new Map();
      for (const v of new Set(leaf.value)) orInto(out, eqSet(reader, t, leaf, v));
      return out;
    }
    case 'prefix': {
      const from = keyValue(leaf.value as string);
      return scan(reader, t, leaf, { from, to: `${from}\u{10ffff}` })!;
    }
    case 'gt':
    case 'gte':
      return range(reader, t, leaf, { from: keyValue(leaf.value) }, universe);
    case 'lt':
    case 'lte':
      return range(reader, t, leaf, { to: leaf.value }, universe);
    case 'between':
      return range(reader, t, leaf, { from: keyValue(leaf.value[0]), to: leaf.value[1] }, universe);
  }
}

/**
 * A leaf on a version kept without postings (a built-in timestamp, `hasPostings`), within `universe`:
 * equalities and ranges read the column's chunks whose zones meet them. Its ops are those of a numeric
 * type (eq, neq, in, ranges; exists reads the exists set like any other).
 */
function columnLeaf(reader: IndexReader, t: string, leaf: CompiledLeaf, universe: DocSet): DocSet {
  const eq = (v: unknown) => {
    if (typeof v !== 'number') throw new Error(`a ${leaf.field.type} field kept without postings takes numeric literals`);
    return rangeFromColumn(reader, t, leaf.field.ver, { lo: v, hi: v, loOpen: false, hiOpen: false }, universe);
  };
  switch (leaf.op) {
    case 'eq':
      return eq(leaf.value);
    case 'neq':
      return andNot(universe, eq(leaf.value));
    case 'in': {
      const out: DocSet = new Map();
      for (const v of new Set(leaf.value)) orInto(out, eq(v));
      return out;
    }
    default: {
      const bounds = numericBounds(leaf);
      if (bounds === null) throw new Error(`op ${leaf.op} has no column form for field "${leaf.field.name}"`);
      return rangeFromColumn(reader, t, leaf.field.ver, bounds, universe);
    }
  }
}

/**
 * A range leaf. A narrow range is cheapest through its postings; a wide one over many distinct values
 * (an `amount between` over 40% of a million documents reads 64,000 posting entries) through the
 * column. The walk does not know its length in advance, so it gives up, for a numeric field, once it has
 * read more entries than the universe has documents / COLUMN_SCAN_RATIO, which bounds the wasted walk by
 * about the cost of the column scan that follows. It gives up sooner when its length can be projected:
 * keys come in value order, so once PROJECT_AFTER entries are read, the share of the values present in
 * range (the bounds within the zone maps' span) walked so far says how long the whole walk would be.
 */
function range(reader: IndexReader, t: string, leaf: CompiledLeaf, bounds: { from?: string | number; to?: string | number }, universe: DocSet): DocSet {
  const numeric = numericBounds(leaf);
  if (numeric === null) return scan(reader, t, leaf, bounds)!;
  const budget = Math.max(MIN_WALK, Math.floor(cardinality(universe) / COLUMN_SCAN_RATIO));
  const [lo, hi] = presentSpan(reader, t, leaf.field.ver, closedBounds(numeric), universe);
  const projectable = Number.isFinite(hi - lo);
  const tooLong = (read: number, value: string | number) =>
    read > budget || (projectable && read >= PROJECT_AFTER && typeof value === 'number' && value > lo && (read * (hi - lo)) / (value - lo) > PROJECT_MARGIN * budget);
  return scan(reader, t, leaf, bounds, tooLong) ?? rangeFromColumn(reader, t, leaf.field.ver, numeric, universe);
}

/** Documents per posting entry at which a numeric column scan costs about as much as the walk (measured, bench:query). */
const COLUMN_SCAN_RATIO = 512;
/** A walk this short never gives up: a tiny universe is no reason to scan columns. */
const MIN_WALK = 64;
/** Entries read before the walk's length is projected, and how far over budget the projection must be to give up. */
const PROJECT_AFTER = 128;
const PROJECT_MARGIN = 2;

/**
 * `[lo, hi]` narrowed to the values the universe's documents may hold, by the zone maps (exact or wider)
 * of the chunks holding one: a chunk no document reached yet has no zone, which reads as unbounded.
 */
function presentSpan(reader: IndexReader, t: string, ver: string, [lo, hi]: [number, number], universe: DocSet): [number, number] {
  let min = Infinity;
  let max = -Infinity;
  for (const [seg, words] of universe) {
    const zones = reader.zones(t, ver, seg);
    for (let c = 0; c < CHUNKS_PER_SEG; c++) {
      if (!chunkHasMember(words, c)) continue;
      if (zones[2 * c]! < min) min = zones[2 * c]!;
      if (zones[2 * c + 1]! > max) max = zones[2 * c + 1]!;
    }
  }
  return [Math.max(lo, min), Math.min(hi, max)];
}

/** Documents holding exactly `value` (for `neq` too, which complements it; for list fields: as an element). */
function eqSet(reader: IndexReader, t: string, leaf: CompiledLeaf, value: string | number): DocSet {
  const set = reader.posting(t, leaf.field.ver, value);
  if (!mayBeCut(value)) return set;
  const exact: CompiledLeaf = leaf.field.type === 'string_list' ? { kind: 'leaf', field: leaf.field, op: 'contains', value } : { kind: 'leaf', field: leaf.field, op: 'eq', value };
  return recheck(reader, t, exact, set);
}

/**
 * Walks posting keys between bounds, keeping those whose key value matches the leaf. Keys of shortened
 * long strings cannot be judged by the key: their documents are re-checked against the column. Gives up
 * (null) when `tooLong` says so of the entries read so far and the value of the last one.
 */
function scan(
  reader: IndexReader,
  t: string,
  leaf: CompiledLeaf,
  bounds: { from?: string | number; to?: string | number },
  tooLong: (read: number, value: string | number) => boolean = () => false,
): DocSet | null {
  const out: DocSet = new Map();
  const doubtful: DocSet = new Map();
  let read = 0;
  for (const entry of reader.postings(t, leaf.field.ver, bounds)) {
    if (tooLong(++read, entry.value)) return null;
    if (mayBeCut(entry.value)) orContainer(doubtful, entry.seg, entry.bytes);
    else if (matchesLeaf(leaf, entry.value)) orContainer(out, entry.seg, entry.bytes);
  }
  return doubtful.size === 0 ? out : orInto(out, recheck(reader, t, leaf, doubtful));
}

function recheck(reader: IndexReader, t: string, leaf: CompiledLeaf, set: DocSet): DocSet {
  const out: DocSet = new Map();
  const form = columnForm(leaf.field.type);
  for (const docNo of toArray(set)) {
    if (matchesLeaf(leaf, reader.value(t, leaf.field.ver, form, docNo))) addDoc(out, docNo);
  }
  return out;
}
