import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { StoredDocument } from '../../src/domain/documents.js';
import type { Scope } from '../../src/domain/scope.js';
import { AppError } from '../../src/errors.js';
import { QueryEngine } from '../../src/query/engine.js';
import { QueryService, type QueryResult } from '../../src/query/service.js';
import { DocumentRecords, DocumentStore } from '../../src/store/documents.js';
import { openStore, scopeKey, type Store } from '../../src/store/lmdb.js';

// A tenant's field indexes are built on first use: writes before it cost nothing, and the first query
// (or declaration) sees every document exactly as if it had been indexed at write time.

const T = 'acme';
let dir: string;
let store: Store;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'engram-wake-'));
  store = openStore(dir);
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const scopeOf = (i: number): Scope => ({ tenant: T, partition: i % 3 === 0 ? 'p' : null, entityId: `owner-${i % 7}` });

function makeDoc(i: number): StoredDocument {
  const scope = scopeOf(i);
  return {
    doc_id: `doc_${String(i).padStart(4, '0')}`, cid: 'c', tenant: T, entity_id: scope.entityId, partition: scope.partition, modality: 'text',
    content_type: 'text/plain', title: null, content: `body ${i}`, derived_text: null, derived_by: null, filename: null,
    metadata: { n: i }, tags: i % 2 ? ['odd'] : ['even'], source: null, readers: null, created_at: 1_000 + i, updated_at: 1_000 + i, deleted_at: null,
  };
}

function open(wake = { pageSize: 500, waitMs: 5_000 }) {
  const fields = new QueryService(store, new DocumentRecords(store), { maxGroups: 100, maxScanned: 100_000 }, wake);
  return { fields, docs: new DocumentStore(store, [fields.writer]) };
}

async function insert(docs: DocumentStore, doc: StoredDocument): Promise<void> {
  const scope: Scope = { tenant: doc.tenant, partition: doc.partition, entityId: doc.entity_id };
  await store.transaction(() => {
    docs.insert(scope, doc, { passages: [], vectors: [], embedder: 'none' });
    // Other index entries of the owner (as the graph keeps), which the wake must step over.
    store.index.put([...scopeKey(scope), 'e_created', doc.created_at, `ent_${doc.doc_id}`], true);
    store.index.put([...scopeKey(scope), 'r_obs', doc.created_at, `rel_${doc.doc_id}`], true);
  });
}

const ctx = { tenant: T, partition: null, principal: 'admin' };
const byOwner = (fields: QueryService) =>
  fields.run(ctx, { group_by: ['entity_id'], aggregate: [{ op: 'count', as: 'n' }] }).then((r) => groups(r));
const groups = (r: QueryResult) => (r.mode === 'groups' ? Object.fromEntries(r.groups.map((g) => [g.keys.entity_id, g.aggregates.n])) : {});
const ids = (r: QueryResult) => (r.mode === 'documents' ? r.documents.map((d) => d.doc.doc_id).sort() : []);

function expectedCounts(docs: StoredDocument[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const d of docs) if (d.deleted_at === null) out[d.entity_id] = (out[d.entity_id] ?? 0) + 1;
  return out;
}

describe('a tenant woken by its first query', () => {
  it('writes nothing to the field indexes while dormant, then answers over every document', async () => {
    const { fields, docs } = open();
    const stored = Array.from({ length: 120 }, (_, i) => makeDoc(i));
    for (const d of stored) await insert(docs, d);
    const indexKeys = [...store.env.openDB({ name: 'field_bin' }).getKeys({ start: [T], end: [T, '\uffff'] })];
    expect(indexKeys).toHaveLength(0);

    expect(await byOwner(fields)).toEqual(expectedCounts(stored));
    const odd = await fields.run(ctx, { filter: { field: 'tags', op: 'contains', value: 'odd' }, limit: 200 });
    expect(ids(odd)).toEqual(stored.filter((d) => d.tags[0] === 'odd').map((d) => d.doc_id));

    // Awake now: later writes are indexed at write time.
    const late = makeDoc(500);
    await insert(docs, late);
    expect((await byOwner(fields))[late.entity_id]).toBe(expectedCounts([...stored, late])[late.entity_id]);
  });

  it('answers 503 with the progress when the build outlasts the wait, and finishes it in the background', async () => {
    const { fields, docs } = open({ pageSize: 5, waitMs: 0 });
    const stored = Array.from({ length: 60 }, (_, i) => makeDoc(i));
    for (const d of stored) await insert(docs, d);
    const first = await fields.run(ctx, { limit: 1 }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(first).toBeInstanceOf(AppError);
    expect((first as AppError).status).toBe(503);
    expect((first as AppError).headers['Retry-After']).toMatch(/^\d+$/);
    expect((first as AppError).message).toMatch(/documents indexed so far/);
    let answer: Record<string, number> | undefined;
    for (let i = 0; i < 200 && !answer; i++) answer = await byOwner(fields).catch(() => undefined);
    expect(answer).toEqual(expectedCounts(stored));
  });

  it('resumes a build cut short by a restart, and indexes the writes made meanwhile', async () => {
    const before = open();
    const stored = Array.from({ length: 40 }, (_, i) => makeDoc(i));
    for (const d of stored) await insert(before.docs, d);
    // A build that died after its first page: the state, the cursor and the entries it left behind.
    const page = new DocumentRecords(store).tenantDocuments(T, null, 15);
    const engine = new QueryEngine(store, { maxGroups: 100, maxScanned: 100_000 });
    await store.transaction(() => {
      engine.states.put(T, { state: 'building', cursor: page.cursor, indexed: page.docs.length });
      engine.writer.writeMany(page.docs);
    });
    // After the restart, writes come before the next query: a new document, a soft delete of a
    // document the build had reached and of one it had not.
    const { fields, docs } = open();
    const late = makeDoc(41);
    await insert(docs, late);
    const reached = page.docs[0]!;
    const unreached = stored.find((d) => !page.docs.some((p) => p.doc_id === d.doc_id))!;
    for (const prev of [reached, unreached]) {
      await store.transaction(() => docs.update({ tenant: T, partition: prev.partition, entityId: prev.entity_id }, prev, { ...prev, deleted_at: 9_999 }));
    }
    const live = [...stored, late].filter((d) => d.doc_id !== reached.doc_id && d.doc_id !== unreached.doc_id);
    expect(await byOwner(fields)).toEqual(expectedCounts(live));
    const all = await fields.run(ctx, { limit: 200 });
    expect(ids(all)).toEqual(live.map((d) => d.doc_id).sort());
  });

  it('declaring a field wakes the tenant, so the declaration backfills what was stored while dormant', async () => {
    const { fields, docs } = open();
    for (let i = 0; i < 10; i++) await insert(docs, makeDoc(i));
    const refs = await fields.declare(T, [{ name: 'n', type: 'int', source: { metadata: 'n' }, partition_scope: null }], () => {});
    expect(refs).toHaveLength(1);
    expect(await byOwner(fields)).toEqual(expectedCounts(Array.from({ length: 10 }, (_, i) => makeDoc(i))));
  });
});

describe('tenantDocuments', () => {
  it('pages over every document of the tenant exactly once, stepping over other owners, tenants and index kinds', async () => {
    const { docs } = open();
    const stored = Array.from({ length: 90 }, (_, i) => makeDoc(i));
    for (const d of stored) await insert(docs, d);
    await insert(docs, { ...makeDoc(1), tenant: 'acme2', doc_id: 'other_tenant' });
    const records = new DocumentRecords(store);
    for (const limit of [1, 7, 90, 1000]) {
      const seen: string[] = [];
      let cursor: ReturnType<DocumentRecords['tenantDocuments']>['cursor'] = null;
      do {
        const page = records.tenantDocuments(T, cursor, limit);
        expect(page.docs.length).toBeLessThanOrEqual(limit);
        seen.push(...page.docs.map((d) => d.doc_id));
        cursor = page.cursor;
      } while (cursor !== null);
      expect(seen.sort()).toEqual(stored.map((d) => d.doc_id).sort());
    }
  });
});
