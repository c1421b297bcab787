import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normaliseValue, planConsolidation, type ConsolidationInput } from '../../src/domain/consolidation.js';
import { retractFact, type Fact } from '../../src/domain/facts.js';
import type { Scalar } from '../../src/domain/scalar.js';

const T = (minute: number) => Date.UTC(2026, 0, 1, 0, minute);

function fact(id: string, value: Scalar, observedMinute: number, overrides: Partial<Fact> = {}): Fact {
  return {
    fact_id: id,
    entity_id: 'u1',
    partition: null,
    subject_type: 'owner',
    subject_id: null,
    predicate: 'likes',
    value,
    cardinality: 'multi',
    valid_from: null,
    observed_at: T(observedMinute),
    invalid_from: null,
    supersedes_fact_id: null,
    created_at: T(observedMinute),
    updated_at: T(observedMinute),
    ...overrides,
  };
}

const plan = (facts: Fact[], activeRelationshipIds: string[] = []) =>
  planConsolidation({ facts, activeRelationshipIds: new Set(activeRelationshipIds) });
const retractedIds = (facts: Fact[], active: string[] = []) => plan(facts, active).retract.map((r) => r.fact.fact_id).sort();

/** Applies a plan the way the actor does and returns the facts after it. */
function apply(input: ConsolidationInput, now: number): Fact[] {
  const gone = new Map(planConsolidation(input).retract.map(({ fact: f }) => [f.fact_id, retractFact(f, now)]));
  return input.facts.map((f) => gone.get(f.fact_id) ?? f);
}

describe('normaliseValue', () => {
  it.each([
    ['  Blue ', 'blue'],
    ['New\t  York', 'new york'],
    ['ÉCOLE', 'école'],
    ['e\u0301cole', 'école'],
  ])('treats %j like %j', (a, b) => {
    expect(normaliseValue(a)).toBe(normaliseValue(b));
  });

  it('compares numbers and booleans by value and keeps types apart', () => {
    expect(normaliseValue(1)).toBe(normaliseValue(1.0));
    expect(normaliseValue(0)).toBe(normaliseValue(-0));
    expect(normaliseValue(1)).not.toBe(normaliseValue('1'));
    expect(normaliseValue(true)).not.toBe(normaliseValue('true'));
    expect(normaliseValue(null)).not.toBe(normaliseValue('null'));
    expect(normaliseValue('a b')).not.toBe(normaliseValue('ab'));
  });
});

describe('planConsolidation: redundant values', () => {
  it('keeps the earliest observed of equal normalised values and retracts the rest', () => {
    const facts = [fact('b', ' blue', 20), fact('a', 'Blue', 10), fact('c', 'BLUE ', 30), fact('d', 'red', 5)];
    const result = plan(facts);
    expect(result.retract.map((r) => [r.fact.fact_id, r.reason])).toEqual([
      ['b', 'duplicate'],
      ['c', 'duplicate'],
    ]);
    expect(result.report).toEqual({ active_facts_before: 4, active_facts_after: 2, retracted: 2 });
  });

  it('breaks a tie of observation instants by the earliest minted id', () => {
    expect(retractedIds([fact('fact_2', 'x', 10), fact('fact_1', 'x', 10)])).toEqual(['fact_2']);
  });

  it('needs the same subject and the same predicate', () => {
    const facts = [
      fact('a', 'x', 1),
      fact('b', 'x', 2, { predicate: 'dislikes' }),
      fact('c', 'x', 3, { subject_type: 'entity', subject_id: 'e1' }),
      fact('d', 'x', 4, { subject_type: 'entity', subject_id: 'e2' }),
      fact('e', 'x', 5, { subject_type: 'entity', subject_id: 'e1' }),
    ];
    expect(retractedIds(facts)).toEqual(['e']);
  });

  it('treats single and multi facts with one value as redundant', () => {
    expect(retractedIds([fact('a', 3, 1, { cardinality: 'single' }), fact('b', 3.0, 2)])).toEqual(['b']);
  });

  it('ignores facts that are not active', () => {
    const facts = [fact('a', 'x', 1, { invalid_from: T(2) }), fact('b', 'x', 3)];
    expect(plan(facts).report).toEqual({ active_facts_before: 1, active_facts_after: 1, retracted: 0 });
  });

  it('retracts nothing from an empty scope', () => {
    expect(plan([]).report).toEqual({ active_facts_before: 0, active_facts_after: 0, retracted: 0 });
  });
});

describe('planConsolidation: relationships', () => {
  const about = (id: string, rel: string, minute: number) => fact(id, `v${id}`, minute, { subject_type: 'relationship', subject_id: rel });

  it('retracts facts about a relationship that is no longer active and keeps those about active ones', () => {
    const facts = [about('a', 'rel_gone', 1), about('b', 'rel_live', 2), fact('c', 'x', 3)];
    const result = plan(facts, ['rel_live']);
    expect(result.retract.map((r) => [r.fact.fact_id, r.reason])).toEqual([['a', 'inactive_relationship']]);
  });

  it('does not let a fact about an inactive relationship displace a duplicate keeper', () => {
    const facts = [fact('a', 'same', 1, { subject_type: 'relationship', subject_id: 'r1' }), fact('b', 'same', 2, { subject_type: 'relationship', subject_id: 'r1' })];
    expect(retractedIds(facts, [])).toEqual(['a', 'b']);
    expect(retractedIds(facts, ['r1'])).toEqual(['b']);
  });
});

describe('planConsolidation: idempotence', () => {
  it('retracts nothing the second time', () => {
    const input = { facts: [fact('a', 'X', 1), fact('b', 'x', 2), fact('c', 'y', 3), fact('d', 'v', 4, { subject_type: 'relationship', subject_id: 'r' })], activeRelationshipIds: new Set<string>() };
    const after = apply(input, T(100));
    expect(planConsolidation({ ...input, facts: after }).report).toEqual({ active_facts_before: 2, active_facts_after: 2, retracted: 0 });
  });

  const arbitraryFacts = fc
    .array(
      fc.record({
        subject: fc.constantFrom<[Fact['subject_type'], string | null]>(['owner', null], ['entity', 'e1'], ['relationship', 'r1'], ['relationship', 'r2']),
        predicate: fc.constantFrom('p', 'q'),
        value: fc.oneof(fc.constantFrom<Scalar>('a', ' A', 'b', 'B  ', 1, 1.5, true, false, null), fc.string({ maxLength: 3 })),
        minute: fc.integer({ min: 0, max: 50 }),
        active: fc.boolean(),
      }),
      { maxLength: 40 },
    )
    .map((rows) =>
      rows.map((r, i) =>
        fact(`fact_${String(i).padStart(3, '0')}`, r.value, r.minute, {
          subject_type: r.subject[0],
          subject_id: r.subject[1],
          predicate: r.predicate,
          invalid_from: r.active ? null : T(r.minute + 1),
        }),
      ),
    );

  it('for any scope: a second run retracts nothing, survivors are distinct and each value keeps its earliest fact', () => {
    fc.assert(
      fc.property(arbitraryFacts, fc.subarray(['r1', 'r2']), (facts, live) => {
        const input = { facts, activeRelationshipIds: new Set(live) };
        const first = planConsolidation(input);
        const after = apply(input, T(1000));
        expect(planConsolidation({ ...input, facts: after }).retract).toEqual([]);
        expect(first.report.active_facts_before - first.report.retracted).toBe(first.report.active_facts_after);
        expect(after.filter((f) => f.invalid_from === null)).toHaveLength(first.report.active_facts_after);
        // Every retracted duplicate has a surviving fact with its key that was observed no later.
        for (const { fact: gone, reason } of first.retract) {
          if (reason !== 'duplicate') continue;
          const keeper = after.find(
            (f) => f.invalid_from === null && f.subject_id === gone.subject_id && f.subject_type === gone.subject_type && f.predicate === gone.predicate && normaliseValue(f.value) === normaliseValue(gone.value),
          );
          expect(keeper).toBeDefined();
          expect(keeper!.observed_at).toBeLessThanOrEqual(gone.observed_at);
        }
      }),
    );
  });
});
