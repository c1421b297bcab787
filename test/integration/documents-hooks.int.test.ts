import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ActorRegistry } from '../../src/actors/registry.js';
import { loadConfig } from '../../src/config.js';
import type { DocumentWriteHook, StoredDocument } from '../../src/domain/documents.js';
import { createLogger } from '../../src/log.js';
import { createDocumentBackends } from '../../src/server.js';
import { GraphStore } from '../../src/store/graph.js';
import { openStore, scopeKey } from '../../src/store/lmdb.js';
import { fillIndex } from '../../src/vector/indexes.js';
import { LocalEmbedder } from '../../src/vector/local-embedder.js';

const dir = mkdtempSync(join(tmpdir(), 'engram-hooks-'));
const store = openStore(dir);
const config = loadConfig({ DATA_DIR: dir, EMBEDDER: 'hash' });
const backendsWith = (hooks: DocumentWriteHook[]) => createDocumentBackends(config, store, createLogger('silent'), hooks);
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('document write hooks (the field indexes plug in here)', () => {
  it('see every insert, soft delete, restore and hard delete inside the write transaction', async () => {
    const calls: Array<{ previous: StoredDocument | undefined; next: StoredDocument | undefined; committedBefore: boolean }> = [];
    const hook: DocumentWriteHook = {
      onDocumentWrite(previous, next) {
        const id = (next ?? previous)!.doc_id;
        // Inside the transaction the record is not yet written (insert) or still the previous version.
        const stored = store.content.get<StoredDocument>(['acme', '', 'owner', 'doc', id]);
        calls.push({ previous, next, committedBefore: stored?.updated_at === next?.updated_at && stored?.deleted_at === next?.deleted_at });
      },
    };
    const backends = backendsWith([hook]);
    const actors = new ActorRegistry({ store, graph: new GraphStore(store), clock: { now: () => Date.now() }, documents: backends }, { maxActors: 10, idleMs: 60_000 });
    const scope = { tenant: 'acme', partition: null, entityId: 'owner' };
    const part = actors.actorFor(scope).documents;

    const doc = await part.insert({ doc_id: 'doc_1', tenant: 'acme', entity_id: 'owner', partition: null, modality: 'text', content_type: 'text/plain', cid: 'mgc1-x', content: 'hello hooks' });
    await part.softDelete('doc_1', 'p');
    await part.softDelete('doc_1', 'p');
    await part.restore('doc_1', 'p');
    await part.hardDelete('doc_1', 'p');

    expect(calls.map((c) => [c.previous?.deleted_at === null, c.next === undefined ? 'gone' : c.next.deleted_at === null ? 'live' : 'deleted'])).toEqual([
      [false, 'live'],
      [true, 'deleted'],
      [false, 'live'],
      [true, 'gone'],
    ]);
    expect(calls[0]!.previous).toBeUndefined();
    expect(calls[0]!.next).toEqual(doc);
    expect(calls.every((c) => !c.committedBefore)).toBe(true);
    expect(backends.docs.get(scope, 'doc_1')).toBeUndefined();
    await actors.close();
  });
});

describe('abandoned media sweep', () => {
  it('removes media staged before the cutoff and keeps newer staged media', async () => {
    const { docs } = backendsWith([]);
    const scope = { tenant: 'acme', partition: 'p1', entityId: 'sweeper' };
    const staged = (docId: string, at: number): StoredDocument => ({
      doc_id: docId, cid: 'mgc1-x', tenant: 'acme', entity_id: 'sweeper', partition: 'p1', modality: 'image', content_type: 'image/png',
      title: null, content: null, derived_text: null, derived_by: null, filename: null, metadata: {}, tags: [], source: null, readers: null,
      created_at: at, updated_at: at, deleted_at: null,
    });
    await store.transaction(() => {
      docs.putPending(scope, { doc: staged('old', 1_000), bytes: new Uint8Array([1]) });
      docs.putPending(scope, { doc: staged('new', 9_000), bytes: new Uint8Array([2]) });
    });
    expect(await docs.sweepPending(5_000)).toBe(1);
    expect(docs.getPending(scope, 'old')).toBeUndefined();
    expect(docs.getPending(scope, 'new')).toBeDefined();
    expect(await docs.sweepPending(5_000)).toBe(0);
    await store.transaction(() => docs.removePending(scope, 'new'));
    expect(await docs.sweepPending(10_000)).toBe(0);
  });
});

describe('loading an owner index from LMDB in chunks', () => {
  it('loads every passage and document across chunk boundaries, the same as one chunk', async () => {
    const embedder = new LocalEmbedder();
    const { docs } = backendsWith([]);
    const scope = { tenant: 'acme', partition: null, entityId: 'chunky' };
    const texts = Array.from({ length: 23 }, (_, i) => `document number ${i} about topic ${i % 5}`);
    await store.transaction(() => {
      texts.forEach((text, i) => {
        const doc: StoredDocument = {
          doc_id: `doc_${i}`, cid: 'mgc1-x', tenant: 'acme', entity_id: 'chunky', partition: null, modality: i % 2 ? 'image' : 'text', content_type: 'text/plain',
          title: null, content: text, derived_text: null, derived_by: null, filename: null, metadata: {}, tags: [], source: null, readers: null,
          created_at: i, updated_at: i, deleted_at: i === 4 ? 5 : null,
        };
        const halves = [text.slice(0, 10), text.slice(10)];
        docs.insert(scope, doc, { passages: halves, vectors: halves.map((h) => embedder.embedOne(h)), embedder: embedder.id });
      });
    });
    const { OwnerVectorIndex } = await import('../../src/vector/owner-index.js');
    const { VectorWorker } = await import('../../src/vector/hnsw/vector-worker.js');
    // Below exactMax: searched exactly here, the worker is never started.
    const options = { dims: 384, embedderId: 'x', exactMax: 10_000, ef: 50, m: 16, efConstruction: 100, filePath: join(dir, 'unused'), worker: new VectorWorker() };
    const make = () => new OwnerVectorIndex({ ...options, checkpoint: { labels: 1000, ms: 1000 }, onError: () => undefined });
    const small = make();
    const whole = make();
    await fillIndex(docs, scope, small, { id: embedder.id, ownsUnlabeled: true }, 3);
    await fillIndex(docs, scope, whole, { id: embedder.id, ownsUnlabeled: true }, 10_000);
    expect(small.size).toBe(46);
    const query = embedder.embedOne('document number 7 about topic 2');
    const ids = async (index: typeof small) => (await index.search(query, 30, { principal: 'p' })).map((h) => h.docId);
    expect(await ids(small)).toEqual(await ids(whole));
    expect(await ids(small)).toHaveLength(22);
    expect(await ids(small)).not.toContain('doc_4');
    expect(await small.search(query, 30, { principal: 'p', modality: 'image' })).toHaveLength(11);
  });

  it('leaves out passages another embedder made, and counts them, instead of mixing two vector spaces', async () => {
    const embedder = new LocalEmbedder();
    const { docs } = backendsWith([]);
    const scope = { tenant: 'acme', partition: null, entityId: 'two-spaces' };
    const doc = (i: number): StoredDocument => ({
      doc_id: `doc_${i}`, cid: 'mgc1-x', tenant: 'acme', entity_id: 'two-spaces', partition: null, modality: 'text', content_type: 'text/plain',
      title: null, content: `text ${i}`, derived_text: null, derived_by: null, filename: null, metadata: {}, tags: [], source: null, readers: null,
      created_at: i, updated_at: i, deleted_at: null,
    });
    await store.transaction(() => {
      docs.insert(scope, doc(0), { passages: ['made here'], vectors: [embedder.embedOne('made here')], embedder: embedder.id });
      docs.insert(scope, doc(1), { passages: ['made elsewhere'], vectors: [embedder.embedOne('made elsewhere')], embedder: 'other-model-384' });
      docs.insert(scope, doc(2), { passages: ['stored before ids'], vectors: [embedder.embedOne('stored before ids')], embedder: embedder.id });
      // A passage as it was stored before records named their embedder.
      const record = docs.passage(scope, 2)!;
      store.records.put([...scopeKey(scope), 'psg', 2], { doc_id: record.doc_id, text: record.text, vector: record.vector });
    });
    expect(docs.passage(scope, 2)!.embedder).toBeUndefined();
    const { OwnerVectorIndex } = await import('../../src/vector/owner-index.js');
    const { VectorWorker } = await import('../../src/vector/hnsw/vector-worker.js');
    const options = { dims: 384, embedderId: embedder.id, exactMax: 10_000, ef: 50, m: 16, efConstruction: 100, filePath: join(dir, 'unused'), worker: new VectorWorker() };
    const make = () => new OwnerVectorIndex({ ...options, checkpoint: { labels: 1000, ms: 1000 }, onError: () => undefined });

    // A node whose embedder may have made unlabeled passages (the hashing one, a provider) keeps them.
    const hashNode = make();
    await fillIndex(docs, scope, hashNode, { id: embedder.id, ownsUnlabeled: true });
    expect(hashNode.size).toBe(2);
    expect(hashNode.foreign).toEqual({ passages: 1, embedders: ['other-model-384'] });

    // The local model came after records were labelled: unlabeled passages are never its own.
    const modelNode = make();
    await fillIndex(docs, scope, modelNode, { id: 'other-model-384', ownsUnlabeled: false });
    expect(modelNode.size).toBe(1);
    expect(modelNode.foreign).toEqual({ passages: 2, embedders: [embedder.id, 'an embedder of an earlier version'] });
  });
});
