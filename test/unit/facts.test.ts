import { describe, expect, it } from 'vitest';
import { applyInvalidation, checkObservedAt, planAssertion, retractFact, type Fact, type FactAssertion } from '../../src/domain/facts.js';
import { activeAt } from '../../src/domain/time.js';

const T = (minute: number) => Date.UTC(2026, 0, 1, 0, minute);

function assertion(id: string, observedMinute: number, overrides: Partial<FactAssertion> = {}): FactAssertion {
  return {
    fact_id: id,
    entity_id: 'u1',
    partition: null,
    subject_type: 'owner',
    subject_id: null,
    predicate: 'color',
    value: id,
    cardinality: 'single',
    valid_from: null,
    observed_at: T(observedMinute),
    ...overrides,
  };
}

/** Applies plans one after another, as the actor does, and returns the resulting store. */
function replay(steps: Array<{ a: FactAssertion; supersedes?: string }>, now = T(1000)): Map<string, Fact> {
  const store = new Map<string, Fact>();
  for (const { a, supersedes } of steps) {
    const chain = [...store.values()].filter((f) => f.predicate === a.predicate && f.subject_id === a.subject_id);
    const plan = planAssertion({ chain, explicitTarget: supersedes ? (store.get(supersedes) ?? null) : null, incoming: a, now });
    for (const inv of plan.invalidations) store.set(inv.fact_id, applyInvalidation(store.get(inv.fact_id)!, inv.invalid_from, now));
    store.set(plan.fact.fact_id, plan.fact);
  }
  return store;
}

const valuesAt = (store: Map<string, Fact>, minute: number) =>
  [...store.values()].filter((f) => activeAt(f, T(minute))).map((f) => f.value).sort();

describe('planAssertion: single cardinality', () => {
  it('supersedes the active fact with no gap and no overlap', () => {
    const store = replay([{ a: assertion('a', 10) }, { a: assertion('b', 20) }]);
    expect(store.get('a')!.invalid_from).toBe(T(20));
    expect(store.get('b')!.invalid_from).toBeNull();
    expect(store.get('b')!.supersedes_fact_id).toBe('a');
  });

  it('builds a chain where each link points at the one it replaced', () => {
    const store = replay([{ a: assertion('a', 10) }, { a: assertion('b', 20) }, { a: assertion('c', 30) }]);
    expect([...store.values()].map((f) => [f.fact_id, f.supersedes_fact_id, f.invalid_from])).toEqual([
      ['a', null, T(20)],
      ['b', 'a', T(30)],
      ['c', 'b', null],
    ]);
  });

  it('as_of at the boundaries: the old value up to just before, the new one from the instant', () => {
    const store = replay([{ a: assertion('a', 10) }, { a: assertion('b', 20) }]);
    expect(valuesAt(store, 9)).toEqual([]);
    expect(valuesAt(store, 10)).toEqual(['a']);
    expect([...store.values()].filter((f) => activeAt(f, T(20) - 1)).map((f) => f.value)).toEqual(['a']);
    expect(valuesAt(store, 20)).toEqual(['b']);
  });

  it('an out-of-order assertion does not displace the active fact and is stored as history', () => {
    const store = replay([{ a: assertion('a', 20) }, { a: assertion('late', 10) }]);
    expect(store.get('a')!.invalid_from).toBeNull();
    expect(store.get('late')!.invalid_from).toBe(T(20));
    expect(valuesAt(store, 15)).toEqual(['late']);
    expect(valuesAt(store, 25)).toEqual(['a']);
  });

  it('an out-of-order assertion between two known values cuts the earlier one short', () => {
    const store = replay([{ a: assertion('a', 10) }, { a: assertion('c', 30) }, { a: assertion('b', 20) }]);
    expect(valuesAt(store, 15)).toEqual(['a']);
    expect(valuesAt(store, 25)).toEqual(['b']);
    expect(valuesAt(store, 35)).toEqual(['c']);
    expect(store.get('b')!.supersedes_fact_id).toBe('a');
    expect(store.get('b')!.invalid_from).toBe(T(30));
  });

  it('exactly one value is active at every instant whatever the arrival order', () => {
    const orders = [
      [10, 20, 30, 40],
      [40, 10, 30, 20],
      [30, 40, 20, 10],
      [20, 10, 40, 30],
    ];
    for (const order of orders) {
      const store = replay(order.map((m) => ({ a: assertion(`m${m}`, m) })));
      for (let minute = 10; minute < 50; minute += 5) {
        const expected = `m${Math.floor(minute / 10) * 10}`;
        expect(valuesAt(store, minute), `order ${order} at ${minute}`).toEqual([expected]);
      }
    }
  });

  it('does not mutate its inputs', () => {
    const store = replay([{ a: assertion('a', 10) }]);
    const chain = [...store.values()];
    const frozen = JSON.stringify(chain);
    planAssertion({ chain, explicitTarget: null, incoming: assertion('b', 20), now: T(100) });
    expect(JSON.stringify(chain)).toBe(frozen);
  });
});

describe('planAssertion: multi cardinality and explicit supersession', () => {
  it('multi values coexist', () => {
    const store = replay([
      { a: assertion('x', 10, { cardinality: 'multi', predicate: 'likes' }) },
      { a: assertion('y', 20, { cardinality: 'multi', predicate: 'likes' }) },
    ]);
    expect([...store.values()].every((f) => f.invalid_from === null)).toBe(true);
  });

  it('explicit supersedes_fact_id retires exactly that fact and records the pointer', () => {
    const store = replay([
      { a: assertion('x', 10, { cardinality: 'multi', predicate: 'likes' }) },
      { a: assertion('y', 20, { cardinality: 'multi', predicate: 'likes' }) },
      { a: assertion('z', 30, { cardinality: 'multi', predicate: 'likes' }), supersedes: 'x' },
    ]);
    expect(store.get('x')!.invalid_from).toBe(T(30));
    expect(store.get('y')!.invalid_from).toBeNull();
    expect(store.get('z')!.supersedes_fact_id).toBe('x');
  });

  it('refuses to supersede an inactive fact', () => {
    const store = replay([{ a: assertion('a', 10) }, { a: assertion('b', 20) }]);
    expect(() =>
      planAssertion({ chain: [...store.values()], explicitTarget: store.get('a')!, incoming: assertion('c', 30), now: T(100) }),
    ).toThrow(/not an active fact/);
  });

  it('refuses an explicit supersession observed before the fact it replaces', () => {
    const store = replay([{ a: assertion('a', 10) }]);
    expect(() =>
      planAssertion({ chain: [...store.values()], explicitTarget: store.get('a')!, incoming: assertion('b', 5), now: T(100) }),
    ).toThrow(/observed_at/);
  });
});

describe('checkObservedAt: observed_at may lead the clock by the skew at most', () => {
  it.each([
    ['the past', T(0), T(10), 0, true],
    ['now, without skew', T(10), T(10), 0, true],
    ['one millisecond ahead, without skew', T(10) + 1, T(10), 0, false],
    ['exactly the skew ahead', T(15), T(10), 5 * 60_000, true],
    ['past the skew', T(15) + 1, T(10), 5 * 60_000, false],
  ])('%s', (_label, observedAt, now, skew, accepted) => {
    const check = () => checkObservedAt(observedAt, now, skew);
    if (accepted) expect(check).not.toThrow();
    else expect(check).toThrow(/^observed_at must be at most \d+ ms after the service clock/);
  });
});

describe('retractFact', () => {
  it('sets invalid_from once and is idempotent', () => {
    const store = replay([{ a: assertion('a', 10) }]);
    const once = retractFact(store.get('a')!, T(50));
    expect(once.invalid_from).toBe(T(50));
    expect(retractFact(once, T(60))).toBe(once);
  });

  it('never retracts before the fact was observed', () => {
    const store = replay([{ a: assertion('a', 100) }]);
    expect(retractFact(store.get('a')!, T(50)).invalid_from).toBe(T(100));
  });
});
