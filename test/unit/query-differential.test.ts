import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredDocument } from '../../src/domain/documents.js';
import { compareWithMissingLast } from '../../src/query/plan/compare.js';
import { matches } from '../../src/query/plan/match.js';
import type { CompiledFilter, DocValue } from '../../src/query/plan/types.js';
import { extractField } from '../../src/query/schema/extract.js';
import { BUILTIN_FIELDS, type FieldType } from '../../src/query/schema/types.js';
import { QueryEngine } from '../../src/query/engine.js';
import { QueryService, type FieldDeclaration } from '../../src/query/service.js';
import { DocumentRecords } from '../../src/store/documents.js';
import { openStore, type Store } from '../../src/store/lmdb.js';

/**
 * Differential test: random documents (inserts, updates, soft deletes, restores, hard deletes) go
 * through the field index hook; thousands of random queries run through the engine (postings, sets,
 * columns) and through a reference that evaluates every document one by one. Answers must agree exactly.
 */

// Deterministic PRNG so a failure reproduces.
let seed = 20261122;
const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
const chance = (p: number) => rnd() < p;

const T = 'acme';
const PRINCIPAL = 'acme-backend';
// Includes strings longer than the 256 characters kept whole in index keys (they share a shortened key).
const LONG = 'x'.repeat(256);
const CATEGORIES = ['alpha', 'beta', 'gamma', 'Beta', 'delta', '', 'é', '😀x', 'alp', LONG, `${LONG}a`, `${LONG}b`, `${LONG.slice(1)}z`];
const LABELS = ['red', 'green', 'blue', 'x y'];
const PARTITIONS = [null, 'p1', 'p2'] as const;

const DECLARED: FieldDeclaration[] = [
  { name: 'category', type: 'string', source: { metadata: 'category' }, partition_scope: null },
  { name: 'price', type: 'float', source: { metadata: 'price' }, partition_scope: null },
  { name: 'qty', type: 'int', source: { metadata: 'qty' }, partition_scope: null },
  { name: 'active', type: 'bool', source: { metadata: 'active' }, partition_scope: null },
  { name: 'when', type: 'datetime', source: { metadata: 'when' }, partition_scope: null },
  { name: 'labels', type: 'string_list', source: { metadata: 'labels' }, partition_scope: null },
  { name: 'order_no', type: 'int', source: { regex: 'order #(\\d+)' }, partition_scope: null },
  { name: 'pcat', type: 'string', source: { metadata: 'category' }, partition_scope: 'p1' },
];
const TYPES: Record<string, FieldType> = { ...BUILTIN_FIELDS, ...Object.fromEntries(DECLARED.map((f) => [f.name, f.type])) };

function randomMetadata(): StoredDocument['metadata'] {
  const m: StoredDocument['metadata'] = {};
  if (chance(0.85)) m.category = chance(0.9) ? pick(CATEGORIES) : pick([7, true, null]);
  if (chance(0.8)) m.price = chance(0.85) ? pick([0, 1, 1.5, -2.25, 10, 99.99, 3]) : pick(['4.5', 'abc', '-0', true]);
  if (chance(0.8)) m.qty = chance(0.85) ? Math.floor(rnd() * 12) - 2 : pick(['5', '1.5', 2.5, 'x']);
  if (chance(0.7)) m.active = chance(0.8) ? chance(0.5) : pick(['true', 'no', 1]);
  if (chance(0.7)) m.when = chance(0.85) ? `2026-0${1 + Math.floor(rnd() * 9)}-1${Math.floor(rnd() * 9)}T10:00:00Z` : pick(['2026-02-30', 'soon', '2026-03-01']);
  if (chance(0.7)) m.labels = Array.from({ length: Math.floor(rnd() * 4) }, () => pick(LABELS)).join(',');
  return m;
}

let docCounter = 0;
function randomDoc(): StoredDocument {
  const n = docCounter++;
  const partition = pick(PARTITIONS);
  const created = 1_000 + Math.floor(rnd() * 50) * 1000;
  return {
    doc_id: `doc_${(n * 7919) % 10007}_${n}`,
    cid: 'mgc1-x',
    tenant: T,
    entity_id: pick(['e1', 'e2', 'e3']),
    partition,
    modality: pick(['text', 'image'] as const),
    content_type: pick(['text/plain', 'text/markdown', 'image/png']),
    title: null,
    content: chance(0.6) ? `note ${chance(0.5) ? `order #${Math.floor(rnd() * 30)}` : 'no order'} ok` : null,
    derived_text: null,
    derived_by: null,
    filename: null,
    metadata: randomMetadata(),
    tags: chance(0.5) ? [pick(['a', 'b', 'c']), pick(['a', 'd'])] : [],
    source: chance(0.5) ? pick(['web', 'mail', 'api']) : null,
    readers: chance(0.85) ? null : pick([[PRINCIPAL], ['someone-else'], []]),
    created_at: created,
    updated_at: created + Math.floor(rnd() * 3) * 500,
    deleted_at: null,
  };
}

// --- the reference evaluator ---

const valueCache = new WeakMap<StoredDocument, Map<string, DocValue>>();

function valueOf(doc: StoredDocument, name: string): DocValue {
  let cached = valueCache.get(doc);
  if (!cached) valueCache.set(doc, (cached = new Map()));
  if (!cached.has(name)) cached.set(name, computeValue(doc, name));
  return cached.get(name)!;
}

function computeValue(doc: StoredDocument, name: string): DocValue {
  switch (name) {
    case 'tags':
      return doc.tags.length === 0 ? null : [...new Set(doc.tags)];
    case 'doc_id':
    case 'entity_id':
    case 'partition':
    case 'modality':
    case 'content_type':
    case 'source':
    case 'created_at':
    case 'updated_at':
      return doc[name];
  }
  const f = DECLARED.find((d) => d.name === name)!;
  if (f.partition_scope !== null && f.partition_scope !== doc.partition) return null;
  const r = extractField(doc, f);
  return r.kind === 'value' ? r.value : null;
}

function visible(doc: StoredDocument, partition: string | null): boolean {
  return doc.deleted_at === null && (partition === null || doc.partition === partition) && (doc.readers === null || doc.readers.includes(PRINCIPAL));
}

// --- random queries ---

const OPS: Record<FieldType, string[]> = {
  string: ['eq', 'neq', 'in', 'gt', 'gte', 'lt', 'lte', 'between', 'exists', 'contains', 'prefix'],
  int: ['eq', 'neq', 'in', 'gt', 'gte', 'lt', 'lte', 'between', 'exists'],
  float: ['eq', 'neq', 'in', 'gt', 'gte', 'lt', 'lte', 'between', 'exists'],
  datetime: ['eq', 'neq', 'in', 'gt', 'gte', 'lt', 'lte', 'between', 'exists'],
  bool: ['eq', 'neq', 'in', 'exists'],
  string_list: ['contains', 'in', 'exists'],
};

function literal(field: string): unknown {
  switch (TYPES[field]) {
    case 'string':
      return field === 'doc_id' ? `doc_${Math.floor(rnd() * 100)}_${Math.floor(rnd() * 100)}` : pick([...CATEGORIES, 'web', 'mail', 'e1', 'e2', 'p1', 'text', 'image/png', 'a', 'g', '']);
    case 'string_list':
      return pick([...LABELS, 'a', 'b', 'd', 'zz']);
    case 'int':
      return Math.floor(rnd() * 32) - 3;
    case 'float':
      return pick([0, 1, 1.5, 3, -2.25, 4.5, 99.99, 50]);
    case 'bool':
      return chance(0.5);
    case 'datetime':
      return field === 'when' ? `2026-0${1 + Math.floor(rnd() * 9)}-1${Math.floor(rnd() * 9)}T10:00:00Z` : new Date(1_000 + Math.floor(rnd() * 50) * 1000).toISOString();
    default:
      throw new Error(field);
  }
}

/** Fields a query may name: `pcat` is scoped to partition p1 and resolves only there. */
let pool: string[] = [];
const usePartition = (partition: string | null) => (pool = Object.keys(TYPES).filter((f) => f !== 'pcat' || partition === 'p1'));

function randomLeaf(): unknown {
  const field = pick(pool);
  const op = pick(OPS[TYPES[field]!]!);
  if (op === 'exists') return { field, op, value: chance(0.5) };
  if (op === 'in') return { field, op, value: Array.from({ length: 1 + Math.floor(rnd() * 3) }, () => literal(field)) };
  if (op === 'between') {
    const [a, b] = [literal(field), literal(field)] as [string | number, string | number];
    const lo = compareWithMissingLast(toComparable(field, a), toComparable(field, b), 'asc') <= 0 ? a : b;
    return { field, op, value: lo === a ? [a, b] : [b, a] };
  }
  if ((op === 'contains' || op === 'prefix') && TYPES[field] === 'string') return { field, op, value: pick(['a', 'e', 'lp', '', 'Be', '😀', 'doc_1', LONG, `${LONG}a`, 'xx']) };
  return { field, op, value: literal(field) };
}

function toComparable(field: string, v: string | number): string | number {
  return TYPES[field] === 'datetime' ? Date.parse(v as string) : v;
}

function randomFilter(depth = 0): unknown {
  const r = rnd();
  if (depth < 3 && r < 0.2) return { and: Array.from({ length: 1 + Math.floor(rnd() * 3) }, () => randomFilter(depth + 1)) };
  if (depth < 3 && r < 0.35) return { or: Array.from({ length: 1 + Math.floor(rnd() * 3) }, () => randomFilter(depth + 1)) };
  if (depth < 3 && r < 0.45) return { not: randomFilter(depth + 1) };
  return randomLeaf();
}

const sortable = () => pool.filter((f) => TYPES[f] !== 'string_list');

describe('structured query engine against a reference evaluator', () => {
  let dir: string;
  let store: Store;
  let fields: QueryService;
  // The same indexes seen from inside: raw pages (document numbers) and raw group rows.
  let engine: QueryEngine;
  const docs = new Map<string, StoredDocument>();

  const write = (prev: StoredDocument | undefined, next: StoredDocument | undefined) =>
    store.transaction(() => fields.writer.onDocumentWrite(prev, next));

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'engram-diff-'));
    store = openStore(dir);
    fields = new QueryService(store, new DocumentRecords(store), { maxGroups: 10_000, maxScanned: 1_000_000 });
    engine = new QueryEngine(store, { maxGroups: 10_000, maxScanned: 1_000_000 });
    await fields.declare(T, DECLARED, () => {});
    for (let i = 0; i < 1500; i++) {
      // Every 150 writes, jump the tenant's document numbers ahead, so documents spread over many
      // 65,536-number segments and column chunks (as a large tenant's do).
      if (i % 150 === 149) {
        await store.transaction(() => engine.db.meta.put([T, 'n'], ((engine.db.meta.get([T, 'n']) as number) ?? 0) + 40_000 + Math.floor(rnd() * 30_000)));
      }
      const r = rnd();
      const existing = [...docs.values()];
      if (existing.length > 10 && r < 0.1) {
        const prev = pick(existing);
        const next = { ...prev, metadata: randomMetadata(), tags: chance(0.5) ? ['b'] : [], updated_at: prev.updated_at + 1 };
        docs.set(prev.doc_id, next);
        await write(prev, next);
      } else if (existing.length > 10 && r < 0.16) {
        const prev = pick(existing);
        const next = { ...prev, deleted_at: prev.deleted_at === null ? 9_999_999 : null };
        docs.set(prev.doc_id, next);
        await write(prev, next);
      } else if (existing.length > 10 && r < 0.19) {
        const prev = pick(existing);
        docs.delete(prev.doc_id);
        await write(prev, undefined);
      } else {
        const doc = randomDoc();
        docs.set(doc.doc_id, doc);
        await write(undefined, doc);
      }
    }
  });

  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('agrees on matches, totals and sorted pages for 2,500 random Mode A queries', () => {
    for (let q = 0; q < 2500; q++) {
      const partition = pick([null, null, 'p1', 'p2']);
      usePartition(partition);
      const filter = chance(0.9) ? randomFilter() : undefined;
      const sort = chance(0.7) ? Array.from({ length: 1 + Math.floor(rnd() * 2) }, () => ({ by: pick(sortable()), dir: pick(['asc', 'desc'] as const) })) : undefined;
      const limit = pick([1, 5, 20, 1000]);
      const offset = pick([0, 0, 3, 40]);
      const request = { filter, sort, limit, offset };
      const compiled = engine.compile(T, partition, request);
      const result = engine.execute({ tenant: T, partition, principal: PRINCIPAL }, compiled);
      if (result.mode !== 'documents') throw new Error('mode');
      const got = result.page.docNos.map((docNo) => engine.locate(T, docNo)!.docId);

      const f = compiled.query.filter as CompiledFilter | null;
      const matching = [...docs.values()].filter((d) => visible(d, partition) && (f === null || matches(f, (ver) => valueOf(d, nameOfVer(ver)))));
      const keys = sort ?? [{ by: 'created_at', dir: 'desc' as const }];
      matching.sort((a, b) => {
        for (const k of keys) {
          const c = compareWithMissingLast(valueOf(a, k.by) as string | number | null, valueOf(b, k.by) as string | number | null, k.dir);
          if (c !== 0) return c;
        }
        return a.doc_id < b.doc_id ? -1 : a.doc_id > b.doc_id ? 1 : 0;
      });
      const expected = matching.slice(offset, offset + limit).map((d) => d.doc_id);
      expect({ q: request, partition, total: result.page.total, docs: got }).toEqual({ q: request, partition, total: matching.length, docs: expected });
    }
  }, 120_000);

  it('agrees on groups and aggregates for 1,000 random Mode B queries', () => {
    const numeric = Object.keys(TYPES).filter((f) => TYPES[f] === 'int' || TYPES[f] === 'float');
    const ordered = [...numeric, 'created_at', 'when'];
    for (let q = 0; q < 1000; q++) {
      const partition = pick([null, 'p1']);
      usePartition(partition);
      const filter = chance(0.7) ? randomFilter() : undefined;
      const groupBy = Array.from(new Set(Array.from({ length: Math.floor(rnd() * 3) }, () => pick(pool.filter((f) => f !== 'doc_id')))));
      const aggregate = [
        { op: 'count' as const },
        { op: 'sum' as const, field: pick(numeric) },
        { op: 'avg' as const, field: pick(numeric) },
        { op: pick(['min', 'max'] as const), field: pick(ordered), as: 'm' },
        { op: 'count_distinct' as const, field: pick(pool), as: 'd' },
      ];
      const sort = chance(0.5) ? [{ by: pick(['count', 'm', 'd', ...groupBy]), dir: pick(['asc', 'desc'] as const) }] : undefined;
      const request = { filter, group_by: groupBy, aggregate, sort };
      const compiled = engine.compile(T, partition, request);
      const result = engine.execute({ tenant: T, partition, principal: PRINCIPAL }, compiled);
      if (result.mode !== 'groups') throw new Error('mode');

      const f = compiled.query.filter as CompiledFilter | null;
      const matching = [...docs.values()].filter((d) => visible(d, partition) && (f === null || matches(f, (ver) => valueOf(d, nameOfVer(ver)))));
      const expected = referenceGroups(matching, groupBy, aggregate, sort ?? []);
      expect({ request, scanned: result.result.scanned, rows: result.result.rows }).toEqual({ request, scanned: matching.length, rows: expected });
    }
  }, 120_000);

  // Versions are `b.<name>` for built-ins and `f<n>` for declarations, minted in DECLARED order.
  const names = new Map<string, string>();
  function nameOfVer(ver: string): string {
    if (ver.startsWith('b.')) return ver.slice(2);
    if (!names.has(ver)) names.set(ver, engine.schema.list(T).find((r) => (r.active ?? r.next)!.ver === ver)!.name);
    return names.get(ver)!;
  }
});

type Agg = { op: 'count' | 'sum' | 'avg' | 'min' | 'max' | 'count_distinct'; field?: string; as?: string };

function referenceGroups(docsInOrder: StoredDocument[], groupBy: string[], aggs: Agg[], sort: Array<{ by: string; dir: 'asc' | 'desc' }>) {
  const groups = new Map<string, { keys: Array<string | number | null>; members: StoredDocument[] }>();
  for (const d of docsInOrder) {
    const expand = (v: DocValue) => (v === null ? [null] : Array.isArray(v) ? v : [v]);
    const k1s = groupBy.length > 0 ? expand(valueOf2(d, groupBy[0]!)) : [null];
    const k2s = groupBy.length > 1 ? expand(valueOf2(d, groupBy[1]!)) : [null];
    for (const k1 of k1s) {
      for (const k2 of k2s) {
        const keys = groupBy.length === 0 ? [] : groupBy.length === 1 ? [k1] : [k1, k2];
        const id = JSON.stringify(keys);
        if (!groups.has(id)) groups.set(id, { keys, members: [] });
        groups.get(id)!.members.push(d);
      }
    }
  }
  if (groupBy.length === 0 && groups.size === 0) groups.set('[]', { keys: [], members: [] });
  const names = aggs.map((a) => a.as ?? (a.field ? `${a.op}_${a.field}` : a.op));
  const rows = [...groups.values()].map((g) => ({
    keys: g.keys,
    values: aggs.map((a) => {
      if (!a.field) return g.members.length;
      const vals = g.members.map((d) => valueOf2(d, a.field!)).filter((v) => v !== null);
      if (a.op === 'count') return vals.length;
      if (a.op === 'count_distinct') return new Set(vals.flatMap((v) => (Array.isArray(v) ? v : [v]))).size;
      const nums = vals as number[];
      if (nums.length === 0) return null;
      if (a.op === 'sum') return nums.reduce((s, n) => s + n, 0);
      if (a.op === 'avg') return nums.reduce((s, n) => s + n, 0) / nums.length;
      return a.op === 'min' ? Math.min(...nums) : Math.max(...nums);
    }),
  }));
  rows.sort((a, b) => {
    for (const s of sort) {
      const ai = names.indexOf(s.by);
      const x = ai >= 0 ? a.values[ai]! : a.keys[groupBy.indexOf(s.by)]!;
      const y = ai >= 0 ? b.values[ai]! : b.keys[groupBy.indexOf(s.by)]!;
      const c = compareWithMissingLast(x, y, s.dir);
      if (c !== 0) return c;
    }
    for (let i = 0; i < a.keys.length; i++) {
      const c = compareWithMissingLast(a.keys[i]!, b.keys[i]!, 'asc');
      if (c !== 0) return c;
    }
    return 0;
  });
  return rows;
}

const valueOf2 = (d: StoredDocument, name: string) => valueOf(d, name);
