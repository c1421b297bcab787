import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { StoredDocument } from '../../src/domain/documents.js';
import type { Fact } from '../../src/domain/facts.js';
import type { Scope } from '../../src/domain/scope.js';
import { DocumentStore } from '../../src/store/documents.js';
import { GraphStore } from '../../src/store/graph.js';
import { openStore, scopeKey, type Store } from '../../src/store/lmdb.js';
import { isSealed, keyAad, openRecord, sealRecord, sealRecordTransient } from '../../src/store/sealed.js';

const KEY = Buffer.alloc(32, 9);
const record = { fact_id: 'f1', value: 'sealed-marker-1', n: 1.5, vector: new Uint8Array([1, 2, 3]), none: null };

describe('sealed records (XChaCha20-Poly1305, the LMDB key as AAD)', () => {
  const key = ['acme', '', 'alice', 'fact', 'f1'];

  it('round-trips a record and holds none of its text in clear', () => {
    const sealed = sealRecord(KEY, keyAad(key), record);
    expect(isSealed(sealed)).toBe(true);
    expect(sealed.includes(Buffer.from('sealed-marker-1'))).toBe(false);
    expect(openRecord(KEY, keyAad(key), sealed)).toEqual({ ...record, vector: Buffer.from([1, 2, 3]) });
    expect(sealRecord(KEY, keyAad(key), record).equals(sealed)).toBe(false);
  });

  it('refuses a tampered value, another key, and a value moved under another LMDB key', () => {
    const sealed = sealRecord(KEY, keyAad(key), record);
    for (const at of [1, 20, sealed.length - 1]) {
      const tampered = Buffer.from(sealed);
      tampered[at]! ^= 1;
      expect(() => openRecord(KEY, keyAad(key), tampered)).toThrow();
    }
    expect(() => openRecord(Buffer.alloc(32, 8), keyAad(key), sealed)).toThrow();
    expect(() => openRecord(KEY, keyAad(['acme', '', 'alice', 'fact', 'f2']), sealed)).toThrow();
    expect(() => openRecord(KEY, keyAad(['acme', '', 'bob', 'fact', 'f1']), sealed)).toThrow();
  });

  it('seals into a reused buffer what opens as sealRecord\'s value does, and a copy stays valid after the next seal', () => {
    const first = Buffer.from(sealRecordTransient(KEY, key, record));
    const second = sealRecordTransient(KEY, ['acme', '', 'alice', 'fact', 'f2'], { ...record, value: 'other' });
    expect(openRecord(KEY, keyAad(key), first)).toEqual(openRecord(KEY, keyAad(key), sealRecord(KEY, keyAad(key), record)));
    expect((openRecord(KEY, keyAad(['acme', '', 'alice', 'fact', 'f2']), second) as { value: string }).value).toBe('other');
    expect(() => openRecord(KEY, keyAad(['acme', '', 'alice', 'fact', 'f2']), first)).toThrow();
    // A record larger than the buffer grows it; a key too long for the AAD buffer still seals.
    const large = { text: 'x'.repeat(40_000) };
    const longKey = ['acme', '', 'a'.repeat(900), 'fact', 'f3'];
    expect(openRecord(KEY, keyAad(longKey), Buffer.from(sealRecordTransient(KEY, longKey, large)))).toEqual(large);
  });

  it('tells sealed values from records in clear and from media sealed with the tenant key', () => {
    expect(isSealed({ value: 'x' })).toBe(false);
    expect(isSealed(Buffer.concat([Buffer.from([1]), Buffer.alloc(40)]))).toBe(false);
  });
});

describe('CONTENT_ENCRYPTION on and off over one store', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const master = Buffer.alloc(32, 4);
  const scope: Scope = { tenant: 'acme', partition: null, entityId: 'mixed' };
  const fact = (id: string, value: string) => ({ fact_id: id, predicate: 'p', value }) as unknown as Fact;
  const doc = (id: string, content: string): StoredDocument => ({
    doc_id: id, cid: 'mgc1-x', tenant: 'acme', entity_id: 'mixed', partition: null, modality: 'image', content_type: 'image/png',
    title: null, content, derived_text: null, derived_by: null, filename: null, metadata: {}, tags: [], source: null, readers: null,
    created_at: 1, updated_at: 1, deleted_at: null,
  });
  const none = { passages: [], vectors: [], embedder: 'hash' };
  const withStore = async (dir: string, encrypt: boolean, fn: (store: Store) => Promise<void>) => {
    const store = openStore(dir, 'full', { masterKey: master, encrypt });
    try {
      await fn(store);
    } finally {
      await store.close();
    }
  };

  it('writes follow the switch and reads take both forms (facts, documents, media bytes, staged media)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'engram-mixed-'));
    dirs.push(dir);
    await withStore(dir, false, async (store) => {
      const docs = new DocumentStore(store, []);
      await new GraphStore(store).putFact(scope, fact('f1', 'plain-marker'));
      await store.transaction(() => {
        docs.insert(scope, doc('d1', 'plain-doc-marker'), none, Buffer.from('plain-bytes-marker'));
        docs.putPending(scope, { doc: doc('s1', ''), bytes: Buffer.from('plain-pending-marker') });
      });
      expect(isSealed(store.records.get([...scopeKey(scope), 'fact', 'f1']))).toBe(false);
    });
    // Off: content in clear in LMDB, media bytes sealed with the tenant key as before.
    const off = readFileSync(join(dir, 'engram.mdb'));
    expect(off.includes(Buffer.from('plain-marker'))).toBe(true);
    expect(off.includes(Buffer.from('plain-bytes-marker'))).toBe(false);
    expect(off.includes(Buffer.from('plain-pending-marker'))).toBe(false);

    await withStore(dir, true, async (store) => {
      const docs = new DocumentStore(store, []);
      const graph = new GraphStore(store);
      await graph.putFact(scope, fact('f2', 'sealed-marker'));
      await store.transaction(() => {
        docs.insert(scope, doc('d2', 'sealed-doc-marker'), none, Buffer.from('sealed-bytes-marker'));
        docs.putPending(scope, { doc: doc('s2', ''), bytes: Buffer.from('sealed-pending-marker') });
      });
      expect(isSealed(store.records.get([...scopeKey(scope), 'fact', 'f2']))).toBe(true);
      expect([...graph.loadFacts(scope)].map((f) => f.value)).toEqual(['plain-marker', 'sealed-marker']);
      expect(docs.get(scope, 'd1')?.content).toBe('plain-doc-marker');
      expect(docs.get(scope, 'd2')?.content).toBe('sealed-doc-marker');
      expect(Buffer.from(docs.getBlob(scope, 'd1')!).toString()).toBe('plain-bytes-marker');
      expect(Buffer.from(docs.getBlob(scope, 'd2')!).toString()).toBe('sealed-bytes-marker');
      expect(Buffer.from(docs.getPending(scope, 's1')!.bytes).toString()).toBe('plain-pending-marker');
      expect(Buffer.from(docs.getPending(scope, 's2')!.bytes).toString()).toBe('sealed-pending-marker');
      const seen: string[] = [];
      await docs.scanDocuments(scope, (d) => seen.push(d.content ?? ''));
      expect(seen).toEqual(['plain-doc-marker', 'sealed-doc-marker']);
    });
    const on = readFileSync(join(dir, 'engram.mdb'));
    for (const marker of ['sealed-marker', 'sealed-doc-marker', 'sealed-bytes-marker', 'sealed-pending-marker']) {
      expect(on.includes(Buffer.from(marker))).toBe(false);
    }
  });
});
