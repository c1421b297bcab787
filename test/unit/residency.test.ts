import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OwnerActor, OwnerActorDeps } from '../../src/actors/owner-actor.js';
import type { FactCommand } from '../../src/actors/owner-facts.js';
import { ActorRegistry } from '../../src/actors/registry.js';
import type { Scope } from '../../src/domain/scope.js';
import { DocumentStore } from '../../src/store/documents.js';
import { VectorIndexes } from '../../src/vector/indexes.js';
import { LocalEmbedder } from '../../src/vector/local-embedder.js';
import { openTempGraph, type TempGraph } from '../helpers/graph.js';

/**
 * One residency budget over everything the owners' actors hold (facts, vector indexes, the actors):
 * real LMDB, real vector indexes (hnswlib above 200 passages), a few large owners among many small ones.
 */
const BUDGET = 3 * 1024 * 1024;
const embedder = new LocalEmbedder();
/** Holds embedding (so a document write stays in flight) while `gate` is set. */
let gate: Promise<void> | null = null;
const gatedEmbedder = { id: embedder.id, dimensions: embedder.dimensions, embed: async (texts: readonly string[]) => (await gate, embedder.embed(texts)) };
const owner = (entityId: string): Scope => ({ tenant: 'acme', partition: null, entityId });
const factOwners = ['facts-0', 'facts-1'].map(owner); // 1,500 facts each: ~0.8 MB
const docOwners = ['docs-0', 'docs-1'].map(owner); // 500 passages each, on hnswlib: ~2.2 MB
const huge = owner('huge'); // 1,200 passages: ~6.5 MB, more than the whole budget
const smalls = Array.from({ length: 30 }, (_, i) => owner(`small-${i}`)); // 3 facts and a document each: ~0.1 MB
const topics = ['glacier', 'volcano', 'desert', 'reef', 'canyon', 'delta', 'tundra', 'steppe'];
const text = (who: string, i: number) => `${who} note ${i} about the ${topics[i % 8]} and the ${topics[(i * 3) % 8]} site`;

let temp: TempGraph;
let deps: OwnerActorDeps;
let registry: ActorRegistry;
let vectorsDir: string;
let counter = 0;
/** Every actor each owner has had: a second one means the owner was evicted and rebuilt from LMDB. */
const actorsOf = new Map<string, Set<OwnerActor>>();
const use = (scope: Scope): OwnerActor => {
  const actor = registry.actorFor(scope);
  actorsOf.set(scope.entityId, (actorsOf.get(scope.entityId) ?? new Set()).add(actor));
  return actor;
};

beforeAll(() => {
  temp = openTempGraph('engram-residency-');
  const docs = new DocumentStore(temp.store, []);
  const indexes = new VectorIndexes(docs, gatedEmbedder, temp.dir, { exactMax: 200, ef: 100, m: 16, efConstruction: 64, checkpoint: { labels: 1000, ms: 30_000 }, onError: () => undefined });
  deps = { ...temp.deps, documents: { docs, embedder: gatedEmbedder, indexes } };
  registry = new ActorRegistry(deps, { maxActors: 1000, idleMs: 600_000, maxResidentBytes: BUDGET });
  vectorsDir = join(temp.dir, 'vectors');
});

afterAll(async () => {
  await registry.close();
  await temp.close();
});

/** What an owner reads back: every fact version, and its search answer (once any hnswlib index is in). */
async function readBack(scope: Scope): Promise<unknown> {
  const actor = use(scope);
  const facts = actor.facts().list({ include_inactive: true, limit: 10_000 });
  await actor.documents.settled();
  const query = `${scope.entityId} note about the reef site`;
  const { hits } = await actor.documents.search({ mode: 'hybrid', text: query, vector: embedder.embedOne(query), k: 10, filter: { principal: 'p' } });
  await actor.documents.settled();
  return { facts, hits: hits.map((h) => ({ id: h.doc.doc_id, score: h.score, passage: h.passage })) };
}

/** The budget holds after every step: the resident owners weigh at most the budget, or one owner is alone. */
async function step<T>(work: Promise<T>): Promise<T> {
  const result = await work;
  for (const actors of actorsOf.values()) for (const actor of actors) await actor.documents.settled();
  if (registry.residentBytes > BUDGET) expect(registry.size).toBe(1);
  return result;
}

const assert = (scope: Scope, predicate: string, value: string): Promise<unknown> => {
  const command: FactCommand = { fact_id: `fact_${String(counter++).padStart(6, '0')}`, subject_type: 'owner', subject_id: null, predicate, value, cardinality: 'single', valid_from: null };
  return use(scope).assertFact(command);
};
const insert = (scope: Scope, i: number): Promise<unknown> =>
  use(scope).documents.insert({ doc_id: `doc_${scope.entityId}_${i}`, tenant: 'acme', entity_id: scope.entityId, partition: null, modality: 'text', content_type: 'text/plain', cid: 'mgc1-x', content: text(scope.entityId, i) });
const many = (n: number, write: (i: number) => Promise<unknown>) => Promise.all(Array.from({ length: n }, (_, i) => write(i)));

describe('one residency budget', () => {
  const seen = new Map<string, unknown>();

  it('keeps a few large owners and many small ones within the budget, and reads evicted owners back unchanged', async () => {
    for (const scope of smalls) {
      await step(many(3, (i) => assert(scope, `p${i}`, `${scope.entityId}-${i}`)));
      await step(insert(scope, 0));
      seen.set(scope.entityId, await step(readBack(scope)));
    }
    for (const scope of factOwners) {
      for (let batch = 0; batch < 15; batch++) await step(many(100, (i) => assert(scope, `p${i}`, `v${batch * 100 + i}`)));
      seen.set(scope.entityId, await step(readBack(scope)));
    }
    for (const scope of docOwners) {
      await step(many(500, (i) => insert(scope, i)));
      seen.set(scope.entityId, await step(readBack(scope)));
    }
    await step(many(1200, (i) => insert(huge, i)));
    seen.set(huge.entityId, await step(readBack(huge)));
    expect(registry.size).toBe(1);

    // Mixed use, in an order that keeps evicting: every owner answers exactly as before.
    for (let round = 0; round < 2; round++) {
      const order = [...smalls.slice(0, 10), docOwners[round]!, ...factOwners, huge, ...smalls.slice(10), docOwners[1 - round]!];
      for (const scope of order) expect(await step(readBack(scope))).toEqual(seen.get(scope.entityId));
    }
    for (const scope of [...factOwners, ...docOwners, huge]) expect(actorsOf.get(scope.entityId)!.size).toBeGreaterThan(1);
  });

  it('writes an evicted owner\'s changed vector index back to disk', async () => {
    const [first, second] = docOwners as [Scope, Scope];
    await step(many(20, (i) => insert(first, 500 + i)));
    await step(readBack(first));
    await step(readBack(second)); // two large document owners do not fit together: the first goes
    await new Promise((resolve) => setImmediate(resolve));
    const covers = readdirSync(vectorsDir).filter((f) => f.endsWith('.json')).map((f) => (JSON.parse(readFileSync(join(vectorsDir, f), 'utf8')) as { covers: number }).covers);
    expect(covers).toContain(520);
  });

  it('loses no write in flight when the budget evicts its owner', async () => {
    const [scope] = smalls as [Scope];
    let open!: () => void;
    gate = new Promise((resolve) => (open = resolve));
    const busy = use(scope);
    const writing = insert(scope, 1); // held while it embeds
    await readBack(huge); // the oversized owner pushes every other owner out, the busy one to draining
    expect(registry.size).toBe(1);
    expect(use(scope)).toBe(busy);
    gate = null;
    open();
    await step(writing);
    await step(readBack(huge));
    expect(registry.size).toBe(1);
    const query = text(scope.entityId, 1);
    const { hits } = await use(scope).documents.search({ mode: 'hybrid', text: query, vector: embedder.embedOne(query), k: 5, filter: { principal: 'p' } });
    expect(hits.map((h) => h.doc.doc_id)).toContain(`doc_${scope.entityId}_1`);
  });

  it('counts what the resident owners weigh, with a budget or without one', async () => {
    const unbudgeted = new ActorRegistry(deps, { maxActors: 1000, idleMs: 600_000 });
    try {
      for (const reg of [registry, unbudgeted]) {
        const scopes = smalls.slice(0, 5).map((s) => owner(`weighed-${s.entityId}`));
        for (const [i, scope] of scopes.entries()) {
          const actor = reg.actorFor(scope);
          await actor.assertFact({ fact_id: `fact_w${counter++}`, subject_type: 'owner', subject_id: null, predicate: 'p', value: `v${i}`, cardinality: 'single', valid_from: null });
          await actor.documents.insert({ doc_id: `doc_w${i}`, tenant: 'acme', entity_id: scope.entityId, partition: null, modality: 'text', content_type: 'text/plain', cid: 'mgc1-x', content: text(scope.entityId, i) });
          await actor.documents.search({ mode: 'hybrid', text: 'reef', vector: embedder.embedOne('reef'), k: 1, filter: { principal: 'p' } });
        }
        const weights = scopes.map((scope) => reg.actorFor(scope).weight);
        if (reg === unbudgeted) expect(reg.residentBytes).toBe(weights.reduce((a, b) => a + b, 0));
        else expect(reg.residentBytes).toBeGreaterThanOrEqual(weights.reduce((a, b) => a + b, 0));
      }
    } finally {
      await unbudgeted.close();
    }
  });
});
