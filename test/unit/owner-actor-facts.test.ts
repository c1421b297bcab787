import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BatchOperation } from '../../src/actors/owner-batch.js';
import { ACTOR_BYTES } from '../../src/actors/owner-actor.js';
import { FactOverlay } from '../../src/actors/fact-overlay.js';
import { FACT_BYTES, INACTIVE_FACT_BYTES } from '../../src/actors/owner-facts.js';
import { ActorRegistry } from '../../src/actors/registry.js';
import type { ManualClock } from '../../src/clock.js';
import type { FactIndex } from '../../src/domain/fact-index.js';
import type { Fact } from '../../src/domain/facts.js';
import type { Scope } from '../../src/domain/scope.js';
import { factStateKey, GraphStore } from '../../src/store/graph.js';
import type { Store } from '../../src/store/lmdb.js';
import { factCommand } from '../helpers/fact-command.js';
import { openTempGraph, type TempGraph } from '../helpers/graph.js';

const owner: Scope = { tenant: 'acme', partition: null, entityId: 'user-1' };
const command = factCommand;
const values = (facts: Fact[]) => facts.map((f) => f.value);

/** Refuses the next `refuse` puts (one command's, as one failed LMDB commit would), a moment later. */
class RefusingGraph extends GraphStore {
  refuse = 0;
  override putFact(scope: Scope, fact: Fact): Promise<boolean> {
    return this.refused() ?? super.putFact(scope, fact);
  }
  override putFactState(scope: Scope, fact: Fact): Promise<boolean> {
    return this.refused() ?? super.putFactState(scope, fact);
  }
  private refused(): Promise<boolean> | undefined {
    if (this.refuse === 0) return undefined;
    this.refuse--;
    return new Promise((_, reject) => setTimeout(() => reject(new Error('disk full')), 20));
  }
}

describe('OwnerFacts overlay', () => {
  const stored = (id: string, invalidFrom: number | null = null): Fact => ({
    fact_id: id,
    entity_id: 'u',
    partition: null,
    subject_type: 'owner',
    subject_id: null,
    predicate: 'city',
    value: id,
    cardinality: 'single',
    valid_from: null,
    observed_at: 10,
    invalid_from: invalidFrom,
    supersedes_fact_id: null,
    created_at: 10,
    updated_at: 10,
  });

  it('shows staged writes to planning only, and to readers once settled', () => {
    const facts = new FactOverlay([stored('a')]);
    const seq = facts.stage([stored('a', 20), stored('b')]);
    expect(facts.view.get('a')!.invalid_from).toBe(20);
    expect(facts.view.activeFacts().map((f) => f.fact_id)).toEqual(['b']);
    expect(facts.view.neighbourhood('owner', null, 'city', 10).map((f) => f.fact_id).sort()).toEqual(['a', 'b']);
    expect(facts.committed.get('a')!.invalid_from).toBeNull();
    expect(facts.committed.get('b')).toBeUndefined();
    facts.settle(seq);
    expect(facts.committed.get('a')!.invalid_from).toBe(20);
    expect(facts.committed.activeFacts().map((f) => f.fact_id)).toEqual(['b']);
  });

  it('shows each fact of a chain once, in its staged version, however many of its committed facts are in flight', () => {
    // A multi-valued predicate: three active facts, two of them closed by writes in flight beside a new one.
    const facts = new FactOverlay([{ ...stored('a'), cardinality: 'multi' }, { ...stored('b'), cardinality: 'multi' }, { ...stored('c'), cardinality: 'multi' }]);
    facts.stage([{ ...stored('a', 20), cardinality: 'multi' }, { ...stored('d'), cardinality: 'multi' }]);
    facts.stage([{ ...stored('b', 20), cardinality: 'multi' }]);
    const near = facts.view.neighbourhood('owner', null, 'city', 10);
    expect(near.map((f) => [f.fact_id, f.invalid_from]).sort()).toEqual([
      ['a', 20],
      ['b', 20],
      ['c', null],
      ['d', null],
    ]);
  });

  it('forgets a failed batch without losing a later staged version of the same fact', () => {
    const facts = new FactOverlay([stored('a')]);
    const failed = facts.stage([stored('a', 20)]);
    const later = facts.stage([stored('a', 15)]);
    facts.discard(failed);
    expect(facts.view.get('a')!.invalid_from).toBe(15);
    facts.settle(later);
    expect(facts.committed.get('a')!.invalid_from).toBe(15);
    expect(facts.view.get('a')).toBe(facts.committed.get('a'));
  });
});

describe('FactOverlay.settleAll', () => {
  const version = (id: string, invalidFrom: number | null, observedAt = 10): Fact => ({
    fact_id: id, entity_id: 'u', partition: null, subject_type: 'owner', subject_id: null, predicate: 'city', value: id,
    cardinality: 'single', valid_from: null, observed_at: observedAt, invalid_from: invalidFrom, supersedes_fact_id: null, created_at: 10, updated_at: 10,
  });
  const listed = (facts: FactOverlay) => facts.committed.list({ include_inactive: true, limit: 10 }).map((f) => [f.fact_id, f.invalid_from]);

  it.each([
    ['every staged batch (nothing else in flight)', false],
    ['some of the staged batches, another still in flight', true],
  ])('settles the last version of each fact of %s, as settling them one by one would', (_, another) => {
    const make = () => new FactOverlay([version('a', null, 5)]);
    const [together, oneByOne] = [make(), make()];
    const stages = [[version('a', 20, 5), version('b', null, 20)], [version('b', 30, 20), version('c', null, 30)], [version('c', 40, 30)]];
    const seqs = stages.map((writes) => together.stage(writes));
    const other = another ? together.stage([version('d', null, 50)]) : undefined;
    together.settleAll(seqs);
    for (const writes of stages) oneByOne.settle(oneByOne.stage(writes));
    expect(listed(together)).toEqual(listed(oneByOne));
    expect(together.view.get('c')!.invalid_from).toBe(40);
    expect(together.view.neighbourhood('owner', null, 'city', 60).map((f) => f.fact_id).sort()).toEqual(another ? ['d'] : []);
    if (other !== undefined) {
      together.settle(other);
      expect(together.committed.get('d')!.invalid_from).toBeNull();
    }
  });
});

describe('OwnerActor facts', () => {
  let temp: TempGraph;
  let store: Store;
  let clock: ManualClock;
  let actors: ActorRegistry;

  beforeEach(() => {
    temp = openTempGraph('engram-actor-facts-');
    ({ store, actors, clock } = temp);
  });

  afterEach(() => temp.close());

  it('lets no reader see an assertion before it is acknowledged', async () => {
    const actor = actors.actorFor(owner);
    const pending = actor.assertFact(command('city', 'Paris'));
    expect(actor.facts().list({ limit: 10 })).toEqual([]);
    const fact = await pending;
    expect(actor.facts().list({ limit: 10 })).toEqual([fact]);
  });

  it('acknowledges a repeated retraction only once the first one has committed', async () => {
    const actor = actors.actorFor(owner);
    const fact = await actor.assertFact(command('city', 'Paris'));
    const order: string[] = [];
    const first = actor.retractFact(fact.fact_id).then(() => order.push('first'));
    const again = actor.retractFact(fact.fact_id).then(() => order.push('again'));
    await Promise.all([first, again]);
    expect(order).toEqual(['first', 'again']);
    expect(actor.facts().get(fact.fact_id)!.invalid_from).not.toBeNull();
  });

  it('plans each assertion on the ones queued before it, committed or not', async () => {
    const actor = actors.actorFor(owner);
    const first = actor.assertFact(command('city', 'Paris'));
    clock.advance(1000);
    const second = actor.assertFact(command('city', 'Lyon'));
    const [paris, lyon] = await Promise.all([first, second]);
    expect(lyon.supersedes_fact_id).toBe(paris.fact_id);
    expect(values(actor.facts().list({ limit: 10 }))).toEqual(['Lyon']);
    expect(actor.facts().get(paris.fact_id)!.invalid_from).toBe(lyon.observed_at);
  });

  it('forgets an assertion whose commit failed: readers never see it and later ones do not build on it', async () => {
    class FailingGraph extends GraphStore {
      failNext = false;
      override putFact(scope: Scope, fact: Fact): Promise<boolean> {
        if (!this.failNext) return super.putFact(scope, fact);
        this.failNext = false;
        return Promise.reject(new Error('disk full'));
      }
    }
    const failing = new FailingGraph(store);
    const actor = new ActorRegistry({ ...temp.deps, graph: failing }, { maxActors: 10, idleMs: 60_000 }).actorFor(owner);
    const paris = await actor.assertFact(command('city', 'Paris'));
    clock.advance(1000);
    failing.failNext = true;
    await expect(actor.assertFact(command('city', 'Lost'))).rejects.toThrow('disk full');
    clock.advance(1000);
    const lyon = await actor.assertFact(command('city', 'Lyon'));
    expect(lyon.supersedes_fact_id).toBe(paris.fact_id);
    expect(values(actor.facts().list({ include_inactive: true, limit: 10 }))).toEqual(['Lyon', 'Paris']);
  });

  it('fails, and stores nothing of, an assertion built on one whose commit then fails', async () => {
    const refusing = new RefusingGraph(store);
    const registry = new ActorRegistry({ ...temp.deps, graph: refusing }, { maxActors: 10, idleMs: 60_000 });
    const actor = registry.actorFor(owner);
    const paris = await actor.assertFact(command('city', 'Paris'));
    clock.advance(1000);
    refusing.refuse = 2; // Paris invalidated, and Lost
    const refused = actor.assertFact(command('city', 'Lost'));
    clock.advance(1000);
    // Planned while Lost is in flight: it supersedes Lost, and would store Lost's invalidated version.
    const built = actor.assertFact(command('city', 'Lyon'));
    await expect(refused).rejects.toThrow('disk full');
    await expect(built).rejects.toThrow('disk full');
    // Nobody was told Lost or Lyon were stored, and nobody sees them, in memory or in LMDB.
    expect(values(actor.facts().list({ include_inactive: true, limit: 10 }))).toEqual(['Paris']);
    expect([...new GraphStore(store).loadFacts(owner)].map((f) => [f.value, f.invalid_from])).toEqual([['Paris', null]]);
    expect(actor.facts().get(paris.fact_id)!.invalid_from).toBeNull();
    await registry.close();
  });

  it('fails an assertion planned while a retraction of its chain was in flight, when that retraction is refused', async () => {
    const refusing = new RefusingGraph(store);
    const registry = new ActorRegistry({ ...temp.deps, graph: refusing }, { maxActors: 10, idleMs: 60_000 });
    const actor = registry.actorFor(owner);
    const paris = await actor.assertFact(command('city', 'Paris'));
    clock.advance(1000);
    refusing.refuse = 1; // the retraction's state record
    const retracted = actor.retractFact(paris.fact_id);
    clock.advance(1000);
    // Planned while the retraction is in flight: Paris looks closed, so Lyon would close nothing.
    const built = actor.assertFact(command('city', 'Lyon'));
    await expect(retracted).rejects.toThrow('disk full');
    await expect(built).rejects.toThrow('disk full');
    // Paris is still the one active city, in memory and in LMDB.
    expect(values(actor.facts().list({ limit: 10 }))).toEqual(['Paris']);
    expect([...new GraphStore(store).loadFacts(owner)].map((f) => [f.value, f.invalid_from])).toEqual([['Paris', null]]);
    await registry.close();
  });

  it('an assertion about another subject or predicate does not fail with a commit in flight that fails', async () => {
    class HeldGraph extends GraphStore {
      gate: Promise<void> | null = null;
      override putFact(scope: Scope, fact: Fact): Promise<boolean> {
        const gate = this.gate;
        if (!gate || fact.value !== 'Lost') return super.putFact(scope, fact);
        return gate.then(() => Promise.reject(new Error('disk full')));
      }
    }
    const held = new HeldGraph(store);
    const registry = new ActorRegistry({ ...temp.deps, graph: held }, { maxActors: 10, idleMs: 60_000 });
    const actor = registry.actorFor(owner);
    await actor.upsertEntity({ memory_entity_id: 'ent_9', entity_type: 'place', display_name: 'Nine', aliases: [], attributes: {} });
    let release!: () => void;
    held.gate = new Promise((resolve) => (release = resolve));
    const city = actor.assertFact(command('city', 'Lost'));
    const others = [
      actor.assertFact(command('food', 'tea')),
      actor.assertFact(command('city', 'Rome', { subject_type: 'entity', subject_id: 'ent_9' })),
      actor.assertFact(command('city:x', 'Oslo')),
    ];
    release();
    await expect(city).rejects.toThrow('disk full');
    await expect(Promise.all(others)).resolves.toHaveLength(3);
    expect(values(actor.facts().list({ include_inactive: true, limit: 10 })).sort()).toEqual(['Oslo', 'Rome', 'tea']);
    await registry.close();
  });

  it('commits an assertion and the writes asked alongside it (a kept answer) in one LMDB transaction', async () => {
    const actor = actors.actorFor(owner);
    await actor.assertFact(command('city', 'Paris'));
    const lastTxn = () => (store.env.getStats() as { lastTxnId: number }).lastTxnId;
    const before = lastTxn();
    const lyon = await actor.assertFact(command('city', 'Lyon'), (decided) => () => void store.records.put(['kept-answer', decided.fact_id], decided.value));
    expect(lastTxn() - before).toBe(1);
    expect(store.records.get(['kept-answer', lyon.fact_id])).toBe('Lyon');
    const stored = [...new GraphStore(store).loadFacts(owner)].map((f) => [f.value, f.invalid_from === null]);
    expect(stored).toEqual(expect.arrayContaining([['Lyon', true], ['Paris', false]]));
  });

  it('commits a batch and the writes asked alongside it in one LMDB transaction', async () => {
    const actor = actors.actorFor(owner);
    const lastTxn = () => (store.env.getStats() as { lastTxnId: number }).lastTxnId;
    const before = lastTxn();
    const results = await actor.applyBatch([{ op: 'assert_fact', command: command('city', 'Oslo') }], (decided) => () => void store.records.put(['kept-batch'], decided.length));
    expect(lastTxn() - before).toBe(1);
    expect(results).toHaveLength(1);
    expect(store.records.get(['kept-batch'])).toBe(1);
  });

  it('stores each fact a batch changes once, in its last version, and reads the same history back from LMDB', async () => {
    const actor = actors.actorFor(owner);
    const paris = await actor.assertFact(command('city', 'Paris'));
    clock.advance(1000);
    const ops = [command('city', 'Oslo'), command('city', 'Rome'), command('drink', 'tea'), command('city', 'Lima')].map((c) => ({ op: 'assert_fact' as const, command: c }));
    const results = await actor.applyBatch([...ops, { op: 'retract_fact', fact_id: ops[2]!.command.fact_id }]);
    const [oslo, rome, tea, lima] = results.map((r) => r.record as Fact);
    // Each answer is the fact as its operation decided it.
    expect([oslo, rome, lima].map((f) => [f!.supersedes_fact_id, f!.invalid_from])).toEqual([[paris.fact_id, null], [oslo!.fact_id, null], [rome!.fact_id, null]]);
    expect(tea!.invalid_from).toBeNull();
    // Facts the batch created and closed: one record each, whole, closed; no state record.
    for (const f of [oslo, rome, tea]) {
      expect(store.records.get(factStateKey(owner, f!.fact_id))).toBeUndefined();
      expect(new GraphStore(store).getFact(owner, f!.fact_id)!.invalid_from).toBe(clock.now());
    }
    // A fact stored by an earlier request: its state record.
    expect(store.records.get(factStateKey(owner, paris.fact_id))).toEqual({ invalid_from: clock.now(), updated_at: clock.now() });
    const history = (index: FactIndex) => index.chain('owner', null, 'city').map((f) => [f.value, f.invalid_from, f.updated_at]);
    const fresh = new ActorRegistry(temp.deps, { maxActors: 100, idleMs: 60_000 }).actorFor(owner);
    expect(history(fresh.facts())).toEqual(history(actor.facts()));
    expect(history(actor.facts())).toEqual([
      ['Paris', clock.now(), clock.now()],
      ['Oslo', clock.now(), clock.now()],
      ['Rome', clock.now(), clock.now()],
      ['Lima', null, clock.now()],
    ]);
    expect(fresh.facts().list({ include_inactive: true, limit: 10 })).toEqual(actor.facts().list({ include_inactive: true, limit: 10 }));
  });

  it('decides a batch exactly as the same operations applied one at a time (random histories, in and out of order)', async () => {
    // Per predicate one cardinality, as callers use them; observed_at mostly ascending, sometimes back-dated
    // (into a chain's past, or between facts of the same batch), with retractions of facts made before.
    const op = fc.oneof(
      { weight: 8, arbitrary: fc.record({ kind: fc.constant('assert' as const), predicate: fc.integer({ min: 0, max: 3 }), back: fc.oneof({ weight: 4, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 40 }) }) }) },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant('retract' as const), pick: fc.nat() }) },
    );
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 60 }), fc.integer({ min: 0, max: 20 }), async (ops, history) => {
        run++;
        const [batched, single] = [`batched-${run}`, `single-${run}`].map((entityId) => actors.actorFor({ ...owner, entityId }));
        // Both owners start from the same committed history, then take the operations.
        let at = clock.now() - 10_000_000;
        const commands: BatchOperation[] = [];
        const created: string[] = [];
        const assertion = (predicate: number, observedAt: number): BatchOperation => {
          const c = command(`p${predicate}`, `v${commands.length}`, { observed_at: observedAt, cardinality: predicate === 3 ? 'multi' : 'single' });
          created.push(c.fact_id);
          return { op: 'assert_fact', command: c };
        };
        for (let i = 0; i < history; i++) {
          const start = assertion(i % 4, (at += 1000));
          for (const actor of [batched!, single!]) await actor.applyBatch([start]);
        }
        for (const o of ops) {
          if (o.kind === 'assert') commands.push(assertion(o.predicate, o.back ? at - o.back * 700 : (at += 1000)));
          else if (created.length > 0) commands.push({ op: 'retract_fact', fact_id: created[o.pick % created.length]! });
        }
        const together = await batched!.applyBatch(commands).then((results) => results.map((r) => r.record), (error: Error) => error.message);
        // One at a time through the single routes' commands: each settled on its own (FactIndex.upsert), where
        // the batch's are settled together (FactIndex.upsertAll).
        const oneByOne: unknown[] = [];
        for (const c of commands) {
          try {
            oneByOne.push(c.op === 'assert_fact' ? await single!.assertFact(c.command) : await single!.retractFact((c as { fact_id: string }).fact_id));
          } catch (error) {
            oneByOne.push((error as Error).message);
            break;
          }
        }
        const same = (records: unknown) => JSON.parse(JSON.stringify(records).replaceAll(/"(batched|single)-\d+"/g, '"owner"')) as unknown;
        if (typeof together === 'string') {
          // Refused as a whole: the same operation is refused one at a time, and the batch left nothing.
          expect(oneByOne.at(-1)).toBe(together.replace(/^operations\[\d+\]: /, ''));
          return;
        }
        expect(same(together)).toEqual(same(oneByOne));
        const listed = (actor: typeof batched) => same(actor!.facts().list({ include_inactive: true, limit: 10_000 }));
        expect(listed(batched)).toEqual(listed(single));
      }),
      { numRuns: 60 },
    );
  });

  it('sees an entity queued just before a fact about it', async () => {
    const actor = actors.actorFor(owner);
    const entity = actor.upsertEntity({ memory_entity_id: 'ent_1', entity_type: 'person', display_name: 'Ada', aliases: [], attributes: {} });
    const about = actor.assertFact(command('role', 'engineer', { subject_type: 'entity', subject_id: 'ent_1' }));
    await expect(Promise.all([entity, about])).resolves.toHaveLength(2);
  });

  it('rebuilds the same facts from LMDB after the actor is dropped', async () => {
    const actor = actors.actorFor(owner);
    const writes: Promise<unknown>[] = [];
    for (let i = 0; i < 200; i++) {
      clock.advance(((i * 7919) % 13) * 1000);
      const observed = clock.now() - ((i * 104729) % 5) * 60_000; // some arrive out of order
      writes.push(actor.assertFact(command(`p${i % 7}`, `v${i}`, { observed_at: observed, cardinality: i % 3 === 0 ? 'multi' : 'single' })));
    }
    const facts = (await Promise.all(writes)) as Fact[];
    writes.length = 0;
    for (const f of facts.filter((_, i) => i % 11 === 0)) writes.push(actor.retractFact(f.fact_id));
    await Promise.all(writes);

    const fresh = new ActorRegistry(temp.deps, { maxActors: 100, idleMs: 60_000 }).actorFor(owner);
    for (const query of [{ limit: 1000 }, { include_inactive: true, limit: 1000 }, { as_of: facts[120]!.observed_at, limit: 1000 }, { predicate: 'p3', include_inactive: true, limit: 1000 }]) {
      expect(fresh.facts().list(query)).toEqual(actor.facts().list(query));
    }
    expect(fresh.facts().size).toBe(200);
  });

  it('keeps the facts in memory equal to LMDB when thousands of assertions are in flight at once', async () => {
    // Enough queued puts that lmdb-js commits them in several batches, and resolves a later batch first.
    const actor = actors.actorFor(owner);
    const facts = await Promise.all(Array.from({ length: 3000 }, (_, i) => actor.assertFact(command(`p${i % 300}`, `v${i}`))));
    const fresh = new ActorRegistry(temp.deps, { maxActors: 100, idleMs: 60_000 }).actorFor(owner);
    expect(actor.facts().list({ include_inactive: true, limit: 10_000 })).toEqual(fresh.facts().list({ include_inactive: true, limit: 10_000 }));
    expect(actor.facts().list({ limit: 1000 })).toHaveLength(300);
    // Each acknowledged assertion is already visible to readers when its answer arrives.
    expect(facts.every((f) => actor.facts().get(f.fact_id) !== undefined)).toBe(true);
  });

  it('evicts idle owners when the facts held in memory exceed the budget, and serves them again from LMDB', async () => {
    const small = new ActorRegistry(temp.deps, { maxActors: 100, idleMs: 60_000, maxResidentBytes: 150 * FACT_BYTES });
    const scope = (n: number): Scope => ({ ...owner, entityId: `user-${n}` });
    for (let n = 0; n < 3; n++) {
      const actor = small.actorFor(scope(n));
      await Promise.all(Array.from({ length: 100 }, (_, i) => actor.assertFact(command(`p${i}`, `v${n}`, { cardinality: 'multi' }))));
      small.actorFor(scope(n)); // charges the actor with its grown weight
    }
    expect(small.size).toBe(1);
    expect(values(small.actorFor(scope(0)).facts().list({ predicate: 'p7', limit: 10 }))).toEqual(['v0']);
  });

  it('prices a superseded version below an active fact: owners with long histories stay resident where as many active facts would not', async () => {
    // 100 assertions each: of one single-valued predicate (1 active, 99 superseded), or of 100 predicates.
    const budget = 3 * (ACTOR_BYTES + FACT_BYTES + 99 * INACTIVE_FACT_BYTES);
    const resident = async (cardinality: 'single' | 'multi') => {
      const small = new ActorRegistry(temp.deps, { maxActors: 100, idleMs: 60_000, maxResidentBytes: budget });
      const scope = (n: number): Scope => ({ ...owner, entityId: `${cardinality}-${n}` });
      for (let n = 0; n < 3; n++) {
        const actor = small.actorFor(scope(n));
        for (let i = 0; i < 100; i++) await actor.assertFact(command(cardinality === 'single' ? 'city' : `p${i}`, `v${i}`, { cardinality }));
        small.actorFor(scope(n)); // charges the actor with its grown weight
      }
      const history = small.actorFor(scope(2)).facts().list({ include_inactive: true, limit: 1000 });
      return { size: small.size, history: values(history).length };
    };
    expect(await resident('single')).toEqual({ size: 3, history: 100 });
    expect((await resident('multi')).size).toBeLessThan(3);
  });

  it('keeps a busy owner as its only writer when the budget pushes it out', async () => {
    const scope = (n: number): Scope => ({ ...owner, entityId: `user-${n}` });
    const seed = actors.actorFor(scope(1));
    await Promise.all(Array.from({ length: 100 }, (_, i) => seed.assertFact(command(`p${i}`, 'x', { cardinality: 'multi' }))));

    const small = new ActorRegistry(temp.deps, { maxActors: 100, idleMs: 60_000, maxResidentBytes: 100 * FACT_BYTES });
    const busy = small.actorFor(scope(0));
    const inFlight = busy.assertFact(command('late', 'y'));
    const big = small.actorFor(scope(1));
    big.facts(); // loads 100 facts
    small.actorFor(scope(1)); // charged with them (the whole budget): owner 0 no longer fits
    expect(small.size).toBe(1);
    expect(small.actorFor(scope(0))).toBe(busy);
    await inFlight;
    expect(values(busy.facts().list({ predicate: 'late', limit: 10 }))).toEqual(['y']);
  });
});
