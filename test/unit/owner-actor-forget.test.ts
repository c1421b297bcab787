import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FactCommand, OwnerActor } from '../../src/actors/owner-actor.js';
import { ActorRegistry } from '../../src/actors/registry.js';
import type { Scope } from '../../src/domain/scope.js';
import { AppError } from '../../src/errors.js';
import { GraphStore } from '../../src/store/graph.js';
import type { Store } from '../../src/store/lmdb.js';
import { openTempGraph, type TempGraph } from '../helpers/graph.js';

const owner: Scope = { tenant: 'acme', partition: null, entityId: 'user-1' };
let counter = 0;
const about = (subjectType: 'entity' | 'relationship' | 'owner', subjectId: string | null, predicate: string, value: string): FactCommand => ({
  fact_id: `fact_${String(counter++).padStart(6, '0')}`,
  subject_type: subjectType,
  subject_id: subjectId,
  predicate,
  value,
  cardinality: 'single',
  valid_from: null,
});
const node = (id: string) => ({ memory_entity_id: id, entity_type: 'person' });
const link = (id: string, from: string, to: string) => ({ relationship_id: id, from_entity_id: from, to_entity_id: to, relationship_type: 'knows' });

/** What readers of the owner's facts see in memory, and what LMDB holds (a fresh load), in the same order. */
function factIds(actor: OwnerActor, store: Store): { memory: string[]; stored: string[] } {
  const memory = actor.facts().list({ include_inactive: true, limit: 10_000 }).map((f) => f.fact_id).sort();
  const stored = [...new GraphStore(store).loadFacts(owner)].map((f) => f.fact_id).sort();
  return { memory, stored };
}

async function notFound(promise: Promise<unknown>): Promise<void> {
  const error = await promise.then(() => null, (e: unknown) => e);
  expect(error).toBeInstanceOf(AppError);
  expect((error as AppError).code).toBe('not_found');
}

describe('OwnerActor.forgetEntity', () => {
  let temp: TempGraph;

  beforeEach(() => {
    temp = openTempGraph('engram-actor-forget-');
  });
  afterEach(() => temp.close());

  /** ann -> bob, bob -> ann; facts on ann (one superseded), on each edge, on bob and on the owner. */
  async function seed(actor: OwnerActor): Promise<void> {
    await Promise.all([actor.upsertEntity(node('ann')), actor.upsertEntity(node('bob'))]);
    await Promise.all([actor.upsertRelationship(link('ann-bob', 'ann', 'bob')), actor.upsertRelationship(link('bob-ann', 'bob', 'ann'))]);
    await actor.assertFact(about('entity', 'ann', 'city', 'Paris'));
    temp.clock.advance(1000);
    await actor.assertFact(about('entity', 'ann', 'city', 'Lyon'));
    await actor.assertFact(about('relationship', 'ann-bob', 'since', '2020'));
    await actor.assertFact(about('relationship', 'bob-ann', 'since', '2021'));
    await actor.assertFact(about('entity', 'bob', 'city', 'Rome'));
    await actor.assertFact(about('owner', null, 'likes', 'ann'));
  }

  it('erases in memory exactly what it erases in LMDB, and keeps the rest', async () => {
    const actor = temp.actors.actorFor(owner);
    await seed(actor);
    await expect(actor.forgetEntity('ann')).resolves.toEqual({ entities: 1, relationships: 2, facts: 4 });
    const { memory, stored } = factIds(actor, temp.store);
    expect(memory).toEqual(stored);
    expect(actor.facts().list({ include_inactive: true, limit: 100 }).map((f) => f.value).sort()).toEqual(['Rome', 'ann']);
    expect(temp.graph.getEntity(owner, 'bob')).toBeDefined();
    expect(temp.graph.listRelationships(owner, { include_inactive: true, limit: 100 })).toEqual([]);
    await notFound(actor.forgetEntity('ann'));
  });

  it('also erases facts about the node that were still in flight when it was asked', async () => {
    const actor = temp.actors.actorFor(owner);
    await seed(actor);
    const late = actor.assertFact(about('entity', 'ann', 'mood', 'calm'));
    const onEdge = actor.assertFact(about('relationship', 'ann-bob', 'weight', '3'));
    const erased = actor.forgetEntity('ann');
    await Promise.all([late, onEdge]);
    await expect(erased).resolves.toEqual({ entities: 1, relationships: 2, facts: 6 });
    const { memory, stored } = factIds(actor, temp.store);
    expect(memory).toEqual(stored);
    expect(memory).toHaveLength(2);
  });

  it('refuses facts and edges about the node queued after it, as for a node that never existed', async () => {
    const actor = temp.actors.actorFor(owner);
    await seed(actor);
    const erased = actor.forgetEntity('ann');
    const onNode = actor.assertFact(about('entity', 'ann', 'mood', 'calm'));
    const onEdge = actor.assertFact(about('relationship', 'bob-ann', 'weight', '3'));
    const edge = actor.upsertRelationship(link('bob-ann-2', 'bob', 'ann'));
    await erased;
    await Promise.all([notFound(onNode), notFound(onEdge), notFound(edge)]);
    const { memory, stored } = factIds(actor, temp.store);
    expect(memory).toEqual(stored);
    expect(memory).toHaveLength(2);
  });

  it('changes nothing, in memory or in LMDB, when its commit fails, and succeeds when asked again', async () => {
    let failNext = false;
    const store: Store = {
      ...temp.store,
      transaction: <T>(fn: () => T): Promise<T> => {
        if (!failNext) return temp.store.transaction(fn);
        failNext = false;
        // The commit refused: the transaction's writes are rolled back, the caller told so.
        try {
          temp.store.env.transactionSync(() => {
            fn();
            throw new Error('disk full');
          });
        } catch (error) {
          return Promise.reject(error as Error);
        }
        throw new Error('unreachable');
      },
    };
    const registry = new ActorRegistry({ ...temp.deps, store }, { maxActors: 10, idleMs: 60_000 });
    const actor = registry.actorFor(owner);
    await seed(actor);
    const before = factIds(actor, temp.store);
    failNext = true;
    await expect(actor.forgetEntity('ann')).rejects.toThrow('disk full');
    expect(factIds(actor, temp.store)).toEqual(before);
    expect(before.memory).toHaveLength(6);
    expect(temp.graph.getEntity(owner, 'ann')).toBeDefined();
    expect(temp.graph.listRelationships(owner, { limit: 10 })).toHaveLength(2);
    await expect(actor.forgetEntity('ann')).resolves.toEqual({ entities: 1, relationships: 2, facts: 4 });
    await registry.close();
  });

  it('loads the facts of an owner not in memory to find what hangs on the node', async () => {
    const seeded = temp.actors.actorFor(owner);
    await seed(seeded);
    const fresh = new ActorRegistry(temp.deps, { maxActors: 10, idleMs: 60_000 });
    const actor = fresh.actorFor(owner);
    await expect(actor.forgetEntity('ann')).resolves.toEqual({ entities: 1, relationships: 2, facts: 4 });
    expect(factIds(actor, temp.store).stored).toHaveLength(2);
    await fresh.close();
  });
});
