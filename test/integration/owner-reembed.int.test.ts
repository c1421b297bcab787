import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ActorRegistry } from '../../src/actors/registry.js';
import type { StoredDocument } from '../../src/domain/documents.js';
import type { Scope } from '../../src/domain/scope.js';
import { DocumentStore } from '../../src/store/documents.js';
import { GraphStore } from '../../src/store/graph.js';
import { openStore, type Store } from '../../src/store/lmdb.js';
import { ReembedRecords } from '../../src/store/reembed.js';
import type { Embedder } from '../../src/vector/embedder.js';
import { VectorIndexes } from '../../src/vector/indexes.js';
import { LocalEmbedder } from '../../src/vector/local-embedder.js';

/**
 * An owner's re-embedding steps on real LMDB, without Temporal: what the workflow's activities run. The
 * "new" embedder is the hashing one under another id, so vectors stay comparable and the test can check
 * which label holds what.
 */
const hash = new LocalEmbedder();

class GatedEmbedder implements Embedder {
  readonly id = 'new-model-384';
  readonly dimensions = 384;
  calls = 0;
  gate: Promise<void> = Promise.resolve();
  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    this.calls++;
    await this.gate;
    return hash.embed(texts);
  }
}

const scope: Scope = { tenant: 'acme', partition: null, entityId: 'owner' };
const doc = (i: number): StoredDocument => ({
  doc_id: `doc_${i}`, cid: 'mgc1-x', tenant: 'acme', entity_id: 'owner', partition: null, modality: 'text', content_type: 'text/plain',
  title: null, content: `note ${i}`, derived_text: null, derived_by: null, filename: null, metadata: {}, tags: [], source: null, readers: null,
  created_at: i, updated_at: i, deleted_at: null,
});
const text = (i: number) => `memory number ${i} about topic ${i % 7} and colour ${i % 5}`;

let dir: string;
let store: Store;
let docs: DocumentStore;
let embedder: GatedEmbedder;
let actors: ActorRegistry;
let reported: Scope[];

/** `old` documents by the hashing embedder, then `fresh` ones already by the new one. */
async function seed(old: number, fresh = 0): Promise<void> {
  await store.transaction(() => {
    for (let i = 0; i < old + fresh; i++) {
      const by = i < old ? hash.id : embedder.id;
      docs.insert(scope, doc(i), { passages: [text(i)], vectors: [hash.embedOne(text(i))], embedder: by });
    }
  });
}

function startActors(exactMax = 1000): void {
  const indexes = new VectorIndexes(docs, embedder, dir, { exactMax, ef: 100, m: 16, efConstruction: 100, checkpoint: { labels: 1000, ms: 30_000 }, onError: () => undefined }, false);
  const documents = { docs, embedder, indexes, onForeignPassages: (s: Scope) => void reported.push(s) };
  actors = new ActorRegistry({ store, graph: new GraphStore(store), clock: { now: () => Date.now() }, documents }, { maxActors: 10, idleMs: 60_000 });
}

const labelsBy = (id: string) => {
  const out: number[] = [];
  for (let label = 0; label < 64; label++) if (docs.passage(scope, label)?.embedder === id) out.push(label);
  return out;
};

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'engram-reembed-'));
  store = openStore(dir);
  docs = new DocumentStore(store, []);
  embedder = new GatedEmbedder();
  reported = [];
});
afterEach(async () => {
  await actors?.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('an owner re-embedded page by page', () => {
  it('rewrites every foreign passage in place, committing its cursor with each page, and stops at the end', async () => {
    await seed(7, 2);
    startActors();
    const steps = actors.actorFor(scope).reembedding;
    expect(await steps.plan()).toEqual({ done: 0, total: 7 });
    const pages: Array<{ done: number; finished: boolean }> = [];
    for (let finished = false; !finished; ) {
      const page = await steps.page(3);
      pages.push(page);
      finished = page.finished;
    }
    expect(pages).toEqual([{ done: 3, finished: false }, { done: 6, finished: false }, { done: 7, finished: true }]);
    // Same labels, same texts, the new embedder's vectors and id.
    expect(labelsBy(embedder.id)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    expect(docs.passage(scope, 4)!.text).toBe(text(4));
    // A restarted job finds nothing left and counts what the committed pages did.
    expect(await steps.plan()).toEqual({ done: 7, total: 7 });
    expect(await steps.finish()).toBe(0);
    expect(await steps.plan()).toEqual({ done: 0, total: 0 });
  });

  it('never resurrects a passage hard-deleted while its page was being embedded, nor counts it', async () => {
    await seed(4);
    startActors();
    const actor = actors.actorFor(scope);
    let release!: () => void;
    embedder.gate = new Promise((resolve) => (release = resolve));
    const page = actor.reembedding.page(10);
    await actor.documents.hardDelete('doc_2', 'anyone');
    release();
    expect(await page).toEqual({ done: 3, finished: true });
    expect(docs.passage(scope, 2)).toBeUndefined();
    expect(labelsBy(embedder.id)).toEqual([0, 1, 3]);
  });

  it('drops a page whose cursor another attempt committed first, so nothing is rewritten or counted twice', async () => {
    await seed(6);
    startActors();
    const steps = actors.actorFor(scope).reembedding;
    let release!: () => void;
    embedder.gate = new Promise((resolve) => (release = resolve));
    // A retried activity whose first attempt is still running: both embed the same page.
    const first = steps.page(4);
    const second = steps.page(4);
    release();
    expect(await Promise.all([first, second])).toEqual([{ done: 4, finished: false }, { done: 4, finished: false }]);
    expect(await steps.page(4)).toEqual({ done: 6, finished: true });
    expect(labelsBy(embedder.id)).toEqual([0, 1, 2, 3, 4, 5]);
  });
});

describe('the owner index around a re-embedding', () => {
  it('reports foreign passages once when it opens, and holds every passage once reloaded', async () => {
    await seed(5, 1);
    startActors();
    const actor = actors.actorFor(scope);
    const before = await actor.documents.vectorIndex();
    expect([before.size, before.foreign]).toEqual([1, { passages: 5, embedders: [hash.id] }]);
    expect(reported).toEqual([scope]);
    while (!(await actor.reembedding.page(2)).finished);
    expect(await actor.reembedding.finish()).toBe(0);
    const after = await actor.documents.vectorIndex();
    expect(after).not.toBe(before);
    expect([after.size, after.foreign]).toEqual([6, null]);
    expect(reported).toEqual([scope]);
  });

  it('does not reuse an hnswlib file written while passages were left out: the re-embedded ones are found', async () => {
    // Above exactMax the index searches hnswlib; its file, built while 20 passages were foreign, lacks them.
    await seed(20, 20);
    startActors(4);
    const actor = actors.actorFor(scope);
    await actor.documents.vectorIndex();
    await actor.documents.settled();
    while (!(await actor.reembedding.page(8)).finished);
    await actor.reembedding.finish();
    await actor.documents.settled();
    const index = await actor.documents.vectorIndex();
    expect(index.approximate).toBe(true);
    for (let i = 0; i < 20; i++) {
      const [best] = await index.search(hash.embedOne(text(i)), 1, { principal: 'p' });
      expect(best?.docId).toBe(`doc_${i}`);
    }
  });
});

describe('the sweep\'s view of a node\'s owners', () => {
  it('visits every owner that stored a passage once, in key order, from any owner on, and finds which hold foreign ones', async () => {
    const owners: Scope[] = [
      { tenant: 'acme', partition: null, entityId: 'a' },
      { tenant: 'acme', partition: null, entityId: 'ab' },
      { tenant: 'acme', partition: 'p1', entityId: 'a' },
      { tenant: 'globex', partition: null, entityId: 'z' },
    ];
    await store.transaction(() => {
      owners.forEach((owner, i) => {
        const by = i % 2 === 0 ? hash.id : embedder.id;
        docs.insert(owner, { ...doc(i), tenant: owner.tenant, partition: owner.partition, entity_id: owner.entityId }, { passages: [text(i)], vectors: [hash.embedOne(text(i))], embedder: by });
      });
      // An owner with facts but no passage is not visited.
      store.records.put(['acme', '', 'facts-only', 'fact', 'f1'], { any: 1 });
    });
    const records = new ReembedRecords(store);
    const node = { id: embedder.id, ownsUnlabeled: false };
    expect([...records.owners(null)]).toEqual(owners);
    expect([...records.owners(owners[1]!)]).toEqual(owners.slice(2));
    const foreign: Scope[] = [];
    for (const owner of records.owners(null)) if ((await records.countForeign(owner, -1, node, 1)) > 0) foreign.push(owner);
    expect(foreign).toEqual([owners[0], owners[2]]);
  });
});
