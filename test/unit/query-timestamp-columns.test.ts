import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredDocument } from '../../src/domain/documents.js';
import type { QueryEngine } from '../../src/query/engine.js';
import type { QueryService } from '../../src/query/service.js';
import { addDoc, encodeContainer } from '../../src/query/storage/docset.js';
import { KEY_TOP, postingKey } from '../../src/query/storage/layout.js';
import { openStore, type Store } from '../../src/store/lmdb.js';
import { answersJson, metadataDoc, metadataFields, queryParts, writeDocs } from '../helpers/field-docs.js';

const N = 2_100;
const FIELDS = metadataFields({ k: 'int', when: 'datetime' });
const TIMESTAMPS = ['b.created_at', 'b.updated_at'];
// Timestamps that repeat (ties ordered by doc_id) and do not follow document numbers.
const doc = (t: string, n: number, edit = 0): StoredDocument => ({
  ...metadataDoc(t, n, { k: n % 5, when: n % 9 === 0 ? null : `2026-01-0${1 + (n % 7)}T00:00:00Z` }),
  created_at: 1_000_000 - (n % 700) * 1000,
  updated_at: 1_000_000 - (n % 700) * 1000 + edit,
});

const iso = (ms: number) => new Date(ms).toISOString();
const REQUESTS = [
  {},
  { sort: [{ by: 'created_at', dir: 'asc' as const }], limit: 30, offset: 10 },
  { sort: [{ by: 'updated_at', dir: 'desc' as const }, { by: 'k', dir: 'asc' as const }], limit: 50 },
  { filter: { field: 'created_at', op: 'eq' as const, value: iso(1_000_000 - 5_000) }, limit: 100 },
  { filter: { field: 'created_at', op: 'neq' as const, value: iso(1_000_000) }, limit: 3 },
  { filter: { field: 'updated_at', op: 'in' as const, value: [iso(1_000_000), iso(1_000_000 - 699_000), iso(7)] }, limit: 100 },
  { filter: { field: 'created_at', op: 'between' as const, value: [iso(500_000), iso(600_000)] as [string, string] }, sort: [{ by: 'when', dir: 'desc' as const }], limit: 20 },
  { filter: { field: 'updated_at', op: 'gt' as const, value: iso(999_000) }, limit: 1000 },
  { filter: { field: 'k', op: 'eq' as const, value: 3 }, sort: [{ by: 'created_at', dir: 'desc' as const }], limit: 7 },
  { group_by: ['k'], aggregate: [{ op: 'count' as const }, { op: 'min' as const, field: 'created_at' }, { op: 'max' as const, field: 'updated_at' }] },
];

/**
 * The built-in timestamps are kept without postings (a column and its zone map answer their filters and
 * sorts). A store written before holds postings for them and no zone maps: it must answer the same, and
 * a write that changes a timestamp removes the old posting.
 */
describe('timestamps kept in columns, and stores written with their postings', () => {
  let dir: string;
  let store: Store;
  let service: QueryService;
  let engine: QueryEngine;

  const write = (t: string, docs: Array<[StoredDocument | undefined, StoredDocument]>) => writeDocs(store, service, t, docs);
  const same = async () => expect(await answersJson(service, 'old', REQUESTS)).toBe(await answersJson(service, 'new', REQUESTS));
  const entries = (t: string, kind: 'p' | 'z', ver: string) => [...engine.db.bin.getKeys({ start: [t, kind, ver], end: [t, kind, ver, KEY_TOP] })].length;

  /** Gives tenant `t` what the writer before zone maps left: timestamp postings, no zone maps. */
  const toEarlierFormat = (t: string) =>
    store.transaction(() => {
      for (const key of [...engine.db.bin.getKeys({ start: [t, 'z'], end: [t, 'z', KEY_TOP] })]) engine.db.bin.remove(key as never);
      for (let n = 0; n < N; n++) {
        const d = doc(t, n);
        const docNo = engine.writer.docNumber(d)!;
        for (const [ver, value] of [[TIMESTAMPS[0]!, d.created_at], [TIMESTAMPS[1]!, d.updated_at]] as const) {
          const key = postingKey(t, ver, value, docNo >>> 16);
          const set = new Map([[0, new Uint32Array(2048)]]);
          const stored = engine.db.bin.get(key);
          if (stored) for (let i = 0; i + 1 < stored.length; i += 2) addDoc(set, stored[i]! | (stored[i + 1]! << 8));
          addDoc(set, docNo & 0xffff);
          engine.db.bin.put(key, Buffer.from(encodeContainer(set.get(0)!)!));
        }
      }
    });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'engram-timestamp-columns-'));
    store = openStore(dir);
    ({ service, engine } = queryParts(store));
    for (const t of ['old', 'new']) {
      await service.declare(t, FIELDS, () => {});
      await write(t, Array.from({ length: N }, (_, n) => [undefined, doc(t, n)]));
    }
    await toEarlierFormat('old');
  });
  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes no timestamp postings, and a zone map per numeric column', () => {
    expect(TIMESTAMPS.map((ver) => entries('new', 'p', ver))).toEqual([0, 0]);
    expect(TIMESTAMPS.map((ver) => entries('new', 'z', ver))).toEqual([1, 1]);
    expect(TIMESTAMPS.map((ver) => entries('old', 'p', ver))).toEqual([700, 700]);
  });

  it('answers filters, sorts and groups on timestamps as the store written with postings does', async () => {
    await same();
  });

  it('after updates, answers the same, and the updated documents lost their old timestamp postings', async () => {
    for (const t of ['old', 'new']) {
      // Documents 0, 700 and 1400 shared their timestamps; 0 and 700 move on, 1400 keeps its posting.
      await write(t, [0, 700, 5, 2099].map((n): [StoredDocument, StoredDocument] => [doc(t, n), doc(t, n, 1 + n)]));
    }
    await same();
    // Each posting lost the updated documents (2 bytes a member): 1,000,000 keeps document 1400 alone.
    const members = (t: string, value: number) => (engine.db.bin.get(postingKey(t, 'b.updated_at', value, 0))?.length ?? 0) / 2;
    expect([members('old', 1_000_000), members('old', 1_000_000 - 5_000), members('old', 1_000_000 - 699_000)]).toEqual([1, 2, 2]);
    expect(entries('new', 'p', 'b.updated_at')).toBe(0);
  });
});
