import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredDocument } from '../../src/domain/documents.js';
import { cardinality, decodeContainer, encodeContainer, forEachBlock, orInto, toArray, type DocSet } from '../../src/query/storage/docset.js';
import { QueryEngine } from '../../src/query/engine.js';
import { QueryService } from '../../src/query/service.js';
import { DocumentRecords } from '../../src/store/documents.js';
import { openStore, type Store } from '../../src/store/lmdb.js';

describe('segment containers', () => {
  it('round-trip as a sorted array while small and as a bitset from 4,096 members', () => {
    for (const n of [1, 10, 4095, 4096, 30000]) {
      const words = new Uint32Array(2048);
      const members = Array.from({ length: n }, (_, i) => (i * 7919) % 65536);
      for (const m of members) words[m >>> 5]! |= 1 << (m & 31);
      const bytes = encodeContainer(words)!;
      expect(bytes.byteLength).toBe(n < 4096 ? n * 2 : 8192);
      expect(Array.from(decodeContainer(bytes))).toEqual(Array.from(words));
    }
    expect(encodeContainer(new Uint32Array(2048))).toBeNull();
  });

  it('lists members across segments in ascending order', () => {
    const set: DocSet = new Map();
    const add = (n: number) => orInto(set, new Map([[n >>> 16, (() => { const w = new Uint32Array(2048); w[(n & 0xffff) >>> 5] = 1 << (n & 31); return w; })()]]));
    [70000, 3, 65535, 65536].forEach(add);
    expect(Array.from(toArray(set))).toEqual([3, 65535, 65536, 70000]);
    expect(cardinality(set)).toBe(4);
  });

  it('visits full blocks and partial ones alike, by any block size', () => {
    // Segment 0 whole; segment 1 holds its first 2,048 numbers but one, and 65,535.
    const whole = new Uint32Array(2048).fill(0xffffffff);
    const partial = new Uint32Array(2048);
    partial.fill(0xffffffff, 0, 64);
    partial[10] = 0xfffffffe;
    partial[2047] = 0x80000000;
    const set: DocSet = new Map([[1, partial], [0, whole]]);
    const expected = [...Array.from({ length: 65536 }, (_, i) => i), ...Array.from({ length: 2048 }, (_, i) => 65536 + i).filter((n) => n !== 65536 + 320), 65536 + 65535];
    for (const shift of [5, 10, 16]) {
      const seen: number[] = [];
      forEachBlock(set, shift, (block, lows, n) => {
        for (let i = 0; i < n; i++) seen.push(block * (1 << shift) + lows[i]!);
      });
      expect(seen).toEqual(expected);
    }
    expect(Array.from(toArray(set))).toEqual(expected);
  });
});

describe('field index hook: coverage and mismatch_count stay exact as documents come and go', () => {
  let dir: string;
  let store: Store;
  let fields: QueryService;
  // The same indexes seen from inside (raw results, schema records, keys).
  let engine: QueryEngine;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'engram-fields-'));
    store = openStore(dir);
    fields = new QueryService(store, new DocumentRecords(store), { maxGroups: 100, maxScanned: 100_000 });
    engine = new QueryEngine(store, { maxGroups: 100, maxScanned: 100_000 });
  });
  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const doc = (i: number, n: string | number | null): StoredDocument => ({
    doc_id: `doc_${i}`, cid: 'c', tenant: 't', entity_id: `e${i % 3}`, partition: i % 2 ? 'p' : null, modality: 'text', content_type: 'text/plain',
    title: null, content: `body ${i}`, derived_text: null, derived_by: null, filename: null, metadata: n === null ? {} : { n }, tags: [], source: null,
    readers: null, created_at: i, updated_at: i, deleted_at: null,
  });

  it('counts values and mismatches through inserts, updates, soft deletes, restores and hard deletes', async () => {
    await fields.declare('t', [{ name: 'n', type: 'int', source: { metadata: 'n' }, partition_scope: null }, { name: 'pn', type: 'int', source: { metadata: 'n' }, partition_scope: 'p' }], () => {});
    const live = new Map<number, StoredDocument>();
    // As the document store does: the record and the hook in one transaction.
    const write = (prev: StoredDocument | undefined, next: StoredDocument | undefined) =>
      store.transaction(() => {
        fields.writer.onDocumentWrite(prev, next);
        const d = (next ?? prev)!;
        const key = [d.tenant, d.partition ?? '', d.entity_id, 'doc', d.doc_id];
        if (next) store.records.put(key, next);
        else store.records.remove(key);
      });
    let seed = 7;
    const rnd = () => ((seed = (seed * 48271) % 2147483647) / 2147483647);
    const value = () => (rnd() < 0.2 ? null : rnd() < 0.3 ? 'bad' : Math.floor(rnd() * 100));
    for (let step = 0; step < 3000; step++) {
      const i = Math.floor(rnd() * 400);
      const prev = live.get(i);
      const r = rnd();
      let next: StoredDocument | undefined;
      if (!prev) next = doc(i, value());
      else if (r < 0.4) next = { ...prev, metadata: doc(i, value()).metadata };
      else if (r < 0.7) next = { ...prev, deleted_at: prev.deleted_at === null ? 1 : null };
      else next = undefined;
      await write(prev, next);
      if (next) live.set(i, next);
      else live.delete(i);
    }
    const docs = [...live.values()].filter((d) => d.deleted_at === null);
    const expected = (scoped: boolean) => {
      const inScope = docs.filter((d) => !scoped || d.partition === 'p');
      return {
        coverage: inScope.filter((d) => typeof d.metadata.n === 'number').length,
        mismatch_count: inScope.filter((d) => d.metadata.n === 'bad').length,
      };
    };
    const listing = fields.list('t');
    const pick = (name: string) => {
      const f = listing.find((x) => x.name === name)!;
      return { coverage: f.coverage, mismatch_count: f.mismatch_count };
    };
    expect(pick('n')).toEqual(expected(false));
    expect(pick('pn')).toEqual(expected(true));
  });

  it('a backfilled version answers exactly like one indexed at write time, and switches atomically', async () => {
    // `n` was indexed at write time; `n2` (same source) is declared now and built by backfill pages.
    const refs = await fields.declare('t', [{ name: 'n2', type: 'int', source: { metadata: 'n' }, partition_scope: null }], () => {});
    expect(refs).toHaveLength(1);
    const ref = refs[0]!;
    expect(fields.list('t').find((f) => f.name === 'n2')!.backfill).toBe('pending');
    let cursor = -1;
    let done = 0;
    for (;;) {
      const page = fields.backfillPage(ref, cursor, 7);
      if (page.docNos.length === 0) break;
      done += page.docNos.length;
      expect(await fields.backfillApply(ref, page.docNos, { done, total: page.total })).toBe(true);
      cursor = page.docNos.at(-1)!;
    }
    expect(fields.list('t').find((f) => f.name === 'n2')!.backfill).toMatch(/^running:\d+\/\d+$/);
    expect(await fields.backfillComplete(ref)).toBe(true);
    const listing = fields.list('t');
    const [n, n2] = ['n', 'n2'].map((name) => listing.find((f) => f.name === name)!);
    expect([n2!.coverage, n2!.mismatch_count, n2!.backfill]).toEqual([n!.coverage, n!.mismatch_count, 'complete']);
    const run = (field: string) => {
      const result = engine.execute({ tenant: 't', partition: null, principal: 'p' }, engine.compile('t', null, { filter: { field, op: 'between', value: [10, 60] }, sort: [{ by: field, dir: 'desc' }], limit: 1000 }));
      return result.mode === 'documents' ? result.page : null;
    };
    expect(run('n2')).toEqual(run('n'));
    // A superseded version is refused: the backfill of an old definition stops.
    expect(await fields.backfillApply(ref, [0], { done: 1, total: 1 })).toBe(false);
  });

  it('a re-declaration keeps answering from the old definition until its backfill switches atomically', async () => {
    const count = (filter: unknown) => {
      const r = engine.execute({ tenant: 't', partition: null, principal: 'p' }, engine.compile('t', null, { filter, limit: 1 }));
      return r.mode === 'documents' ? r.page.total : -1;
    };
    const asInt = count({ field: 'n', op: 'gte', value: 0 });
    expect(asInt).toBeGreaterThan(0);
    const [ref] = await fields.declare('t', [{ name: 'n', type: 'string', source: { metadata: 'n' }, partition_scope: null }], () => {});
    const listed = fields.list('t').find((f) => f.name === 'n')!;
    expect([listed.type, listed.backfill, listed.coverage]).toEqual(['string', 'pending', 0]);
    expect(count({ field: 'n', op: 'gte', value: 0 })).toBe(asInt);
    expect(() => count({ field: 'n', op: 'eq', value: 'bad' })).toThrow('"n"');
    const page = fields.backfillPage(ref!, -1, 100_000);
    await fields.backfillApply(ref!, page.docNos, { done: page.docNos.length, total: page.total });
    expect(count({ field: 'n', op: 'gte', value: 0 })).toBe(asInt);
    expect(await fields.backfillComplete(ref!)).toBe(true);
    expect(() => count({ field: 'n', op: 'gte', value: 0 })).toThrow('"n"');
    const strings = count({ field: 'n', op: 'exists', value: true });
    expect(strings).toBe(fields.list('t').find((f) => f.name === 'n')!.coverage);
    expect(count({ field: 'n', op: 'eq', value: 'bad' })).toBeGreaterThan(0);
  });

  it('re-declaring an unchanged definition keeps its version and asks for no backfill; after a failed backfill it asks again', async () => {
    const record = () => engine.schema.get('t', null, 'n')!;
    const before = record();
    expect(before.backfill).toBe('complete');
    const gates: boolean[] = [];
    const refs = await fields.declare('t', [{ name: 'n', type: before.type, source: before.source, partition_scope: null }], (needed) => gates.push(needed));
    expect([refs, gates, record()]).toEqual([[], [false], before]);
    // Same name and type, another source: a new version to backfill.
    const [changed] = await fields.declare('t', [{ name: 'n', type: before.type, source: { regex: '(\\d+)' }, partition_scope: null }], () => {});
    expect(changed!.ver).not.toBe(before.active!.ver);
    await fields.backfillFailed(changed!, 'boom');
    const [retry] = await fields.declare('t', [{ name: 'n', type: before.type, source: { regex: '(\\d+)' }, partition_scope: null }], () => {});
    expect(retry!.ver).not.toBe(changed!.ver);
    expect(record().backfill).toBe('pending');
  });

  it('a stored pattern RE2 cannot compile (declared before RE2) reads as missing and never fails a write', async () => {
    await store.transaction(() => {
      const ver = engine.schema.mintVersion('t');
      const def = { ver, type: 'string' as const, source: { regex: 'body (?=1)(\\d+)' } };
      engine.schema.put('t', { name: 'legacy', partition_scope: null, ...def, active: def, next: null, backfill: 'complete' });
    });
    const d = doc(1000, 1);
    await store.transaction(() => fields.writer.onDocumentWrite(undefined, d));
    expect(fields.documentFields(d)).not.toHaveProperty('legacy');
    expect(fields.list('t').find((f) => f.name === 'legacy')!.coverage).toBe(0);
  });

  it('deleting a field removes its index entries, in bounded transactions', async () => {
    const ver = engine.schema.get('t', null, 'n2')!.active!.ver;
    const entries = () => ['p', 's', 'c'].reduce((n, tag) => n + [...engine.db.bin.getKeys({ start: ['t', tag, ver], end: ['t', tag, ver, '\u{10ffff}'] })].length, 0);
    expect(entries()).toBeGreaterThan(0);
    // Retire without collecting, then collect in pages of 7 keys.
    await store.transaction(() => {
      engine.schema.remove('t', null, 'n2');
      engine.db.meta.put(['t', 'gc', ver], true);
    });
    await engine.collect('t', 7);
    expect(entries()).toBe(0);
    expect([...engine.db.meta.getKeys({ start: ['t', 'gc'], end: ['t', 'gc', '\u{10ffff}'] })]).toEqual([]);
    expect(fields.list('t').map((f) => f.name)).not.toContain('n2');
  });
});
