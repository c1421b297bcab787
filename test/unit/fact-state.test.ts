import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Fact } from '../../src/domain/facts.js';
import { GraphStore } from '../../src/store/graph.js';
import { openStore, scopeKey, type Store } from '../../src/store/lmdb.js';

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
});
