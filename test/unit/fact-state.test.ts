import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Fact } from '../../src/domain/facts.js';
import { factStateKey, GraphStore } from '../../src/store/graph.js';
import { KEY_MAX, openStore, scopeKey, type Store } from '../../src/store/lmdb.js';

const scope = { tenant: 'acme', partition: null, entityId: 'alice' };
const fact: Fact = {
  fact_id: 'fact_1', entity_id: 'alice', partition: null, subject_type: 'owner', subject_id: null, predicate: 'city', value: 'Lisbon',
  cardinality: 'single', valid_from: null, observed_at: 1000, invalid_from: null, supersedes_fact_id: null, created_at: 1000, updated_at: 1000,
};

const dirs: string[] = [];
const stores: Store[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function open(dir = mkdtempSync(join(tmpdir(), 'engram-fact-state-'))): { store: Store; graph: GraphStore; dir: string } {
  if (!dirs.includes(dir)) dirs.push(dir);
  const store = openStore(dir, 'full', { masterKey: Buffer.alloc(32, 3), encrypt: true });
  stores.push(store);
  return { store, graph: new GraphStore(store), dir };
}

describe('a stored fact and its later state', () => {
  it('closes a fact without rewriting its sealed record, and reads it back closed, also after a reopen', async () => {
    const { store, graph, dir } = open();
    await graph.putFact(scope, fact);
    const key = [...scopeKey(scope), 'fact', fact.fact_id];
    const sealedBefore = Buffer.from(store.records.get(key) as Uint8Array);
    const closed = { ...fact, invalid_from: 2000, updated_at: 2000 };
    await graph.putFactState(scope, closed);

    expect(Buffer.from(store.records.get(key) as Uint8Array).equals(sealedBefore)).toBe(true);
    expect(graph.getFact(scope, fact.fact_id)).toEqual(closed);
    expect([...graph.loadFacts(scope)]).toEqual([closed]);
    await store.close();
    stores.splice(stores.indexOf(store), 1);
    const again = open(dir);
    expect(again.graph.getFact(scope, fact.fact_id)).toEqual(closed);
    expect([...again.graph.loadFacts(scope)]).toEqual([closed]);
  });

  it('forgets both parts of a fact, so an id stored again starts from its new record', async () => {
    const { store, graph } = open();
    await graph.putFact(scope, fact);
    await graph.putFactState(scope, { ...fact, invalid_from: 2000, updated_at: 2000 });
    await store.transaction(() => graph.removeFact(scope, fact.fact_id));
    expect(graph.getFact(scope, fact.fact_id)).toBeUndefined();
    const reborn = { ...fact, value: 'Porto', created_at: 1500, updated_at: 1500 };
    await graph.putFact(scope, reborn);
    expect([...graph.loadFacts(scope)]).toEqual([reborn]);
  });

  it('keeps the state record right after its fact, so one leaf page takes both', async () => {
    const { store, graph } = open();
    const later = { ...fact, fact_id: 'fact_2', created_at: 1500, updated_at: 1500 };
    await graph.putFact(scope, fact);
    await graph.putFact(scope, later);
    await graph.putFactState(scope, { ...fact, invalid_from: 2000, updated_at: 2000 });
    const keys = [...store.records.getKeys({ start: [...scopeKey(scope), 'fact'], end: [...scopeKey(scope), 'fact', KEY_MAX] })];
    expect(keys).toEqual([[...scopeKey(scope), 'fact', 'fact_1'], factStateKey(scope, 'fact_1'), [...scopeKey(scope), 'fact', 'fact_2']]);
    expect([...graph.loadFacts(scope)].map((f) => [f.fact_id, f.invalid_from])).toEqual([['fact_1', 2000], ['fact_2', null]]);
  });

  it('reads a state stored under the earlier layout (fst), and a state written since wins over it', async () => {
    const { store, graph } = open();
    await graph.putFact(scope, fact);
    await graph.putFact(scope, { ...fact, fact_id: 'fact_2' });
    // As a store written before 2026-11-27 holds a fact's state: under the owner's `fst` range.
    await store.records.put([...scopeKey(scope), 'fst', 'fact_1'], { invalid_from: 2000, updated_at: 2000 });
    expect(graph.getFact(scope, 'fact_1')).toEqual({ ...fact, invalid_from: 2000, updated_at: 2000 });
    expect([...graph.loadFacts(scope)].map((f) => [f.fact_id, f.invalid_from])).toEqual([['fact_1', 2000], ['fact_2', null]]);

    const retracted = { ...fact, invalid_from: 1800, updated_at: 3000 };
    await graph.putFactState(scope, retracted);
    expect(graph.getFact(scope, 'fact_1')).toEqual(retracted);
    expect([...graph.loadFacts(scope)][0]).toEqual(retracted);

    await store.transaction(() => graph.removeFact(scope, 'fact_1'));
    expect(store.records.get([...scopeKey(scope), 'fst', 'fact_1'])).toBeUndefined();
    expect(store.records.get(factStateKey(scope, 'fact_1'))).toBeUndefined();
    expect([...graph.loadFacts(scope)].map((f) => f.fact_id)).toEqual(['fact_2']);
  });

  it('pages every fact once, states not counted as facts, whatever the ids', async () => {
    const { graph } = open();
    // 'st' is a valid id: the state's key part must not be read as one.
    const ids = ['fact_1', 'st', 'st2'];
    for (const id of ids) {
      await graph.putFact(scope, { ...fact, fact_id: id });
      await graph.putFactState(scope, { ...fact, fact_id: id, invalid_from: 2000, updated_at: 2000 });
    }
    const pages: string[][] = [];
    for await (const page of graph.factPages(scope, 2)) pages.push(page.map((f) => `${f.fact_id}:${f.invalid_from}`));
    expect(pages.flat()).toEqual(['fact_1:2000', 'st:2000', 'st2:2000']);
    expect([...graph.loadFacts(scope)].map((f) => `${f.fact_id}:${f.invalid_from}`)).toEqual(['fact_1:2000', 'st:2000', 'st2:2000']);
  });
});
