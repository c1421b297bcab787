import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FactIndex, NEIGHBOURS_BEFORE, type FactQuery } from '../../src/domain/fact-index.js';
import { applyInvalidation, byObservedDesc, planAssertion, retractFact, type Fact, type FactAssertion, type SubjectType } from '../../src/domain/facts.js';
import { factPosition, type ListPosition } from '../../src/domain/list-page.js';
import { stateMatches } from '../../src/domain/time.js';

const SUBJECTS: Array<[SubjectType, string | null]> = [
  ['owner', null],
  ['entity', 'e1'],
  ['entity', 'e2'],
];
const PREDICATES = ['color', 'city', 'a\u0000b'];

function fact(id: number, subject: number, predicate: number, observedAt: number, invalidFrom: number | null): Fact {
  const [subject_type, subject_id] = SUBJECTS[subject]!;
  return {
    fact_id: `fact_${String(id).padStart(4, '0')}`,
    entity_id: 'u1',
    partition: null,
    subject_type,
    subject_id,
    predicate: PREDICATES[predicate]!,
    value: id,
    cardinality: 'multi',
    valid_from: null,
    observed_at: observedAt,
    invalid_from: invalidFrom === null ? null : observedAt + invalidFrom,
    supersedes_fact_id: null,
    created_at: 0,
    updated_at: 0,
  };
}

/** The reference: every stored fact, filtered and sorted from scratch on each question. */
function referenceList(facts: Fact[], q: FactQuery): Fact[] {
  return facts
    .filter(
      (f) =>
        (q.subject_type === undefined || (f.subject_type === q.subject_type && f.subject_id === (q.subject_id ?? null))) &&
        (q.predicate === undefined || f.predicate === q.predicate) &&
        stateMatches(f, q),
    )
    .sort(byObservedDesc)
    .slice(0, q.limit);
}

const ids = (facts: Fact[]) => facts.map((f) => f.fact_id);

// Facts arrive in any order (observed_at from a narrow range, so ties are common), and some are later
// replaced by a version with a different state: the index must answer like a full scan.
const workload = fc.record({
  facts: fc.array(
    fc.record({
      subject: fc.integer({ min: 0, max: SUBJECTS.length - 1 }),
      predicate: fc.integer({ min: 0, max: PREDICATES.length - 1 }),
      observedAt: fc.integer({ min: 0, max: 40 }),
      invalidAfter: fc.option(fc.integer({ min: 1, max: 20 }), { nil: null }),
    }),
    { maxLength: 60 },
  ),
  updates: fc.array(fc.record({ pick: fc.nat(), invalidAfter: fc.option(fc.integer({ min: 0, max: 20 }), { nil: null }) }), { maxLength: 30 }),
  /** Facts erased (forgetting their subject) after the updates; the same pick twice removes one that is gone. */
  removals: fc.array(fc.nat(), { maxLength: 25 }),
  queries: fc.array(
    fc.record({
      subject: fc.option(fc.integer({ min: 0, max: SUBJECTS.length - 1 }), { nil: undefined }),
      predicate: fc.option(fc.integer({ min: 0, max: PREDICATES.length - 1 }), { nil: undefined }),
      asOf: fc.option(fc.integer({ min: -1, max: 70 }), { nil: undefined }),
      includeInactive: fc.boolean(),
      limit: fc.integer({ min: 1, max: 70 }),
    }),
    { minLength: 1, maxLength: 10 },
  ),
});

/** Every page `read` gives, each resumed past the last fact of the one before, until a short page. */
function walkPages(read: (after: ListPosition | undefined) => Fact[], size: number): Fact[] {
  const out: Fact[] = [];
  for (let after: ListPosition | undefined; ; ) {
    const page = read(after);
    out.push(...page);
    if (page.length < size) return out;
    after = factPosition(page.at(-1)!);
  }
}

describe('FactIndex', () => {
  // Kept whole, and kept as key and state once inactive with the rest read back from the stored content
  // (what an owner's actor does): every answer is the same, fact for fact.
  it.each(['whole', 'read back'])('answers every listing exactly like a full scan, through inserts in any order, new versions and removals (inactive facts %s)', (kept) => {
    fc.assert(
      fc.property(workload, ({ facts, updates, removals, queries }) => {
        const stored = new Map<string, Fact>();
        // What LMDB holds of each fact: its content as first stored, never changed by a later version.
        const content = new Map<string, Fact>();
        const index = new FactIndex([], kept === 'whole' ? undefined : (id) => content.get(id));
        facts.forEach((f, i) => {
          const created = fact(i, f.subject, f.predicate, f.observedAt, f.invalidAfter);
          stored.set(created.fact_id, created);
          content.set(created.fact_id, created);
          index.upsert(created);
        });
        for (const { pick, invalidAfter } of updates) {
          const current = [...stored.values()][pick % Math.max(1, stored.size)];
          if (!current) continue;
          const next = { ...current, invalid_from: invalidAfter === null ? null : current.observed_at + invalidAfter, updated_at: current.updated_at + 1 };
          stored.set(next.fact_id, next);
          index.upsert(next);
        }
        // Removed in two batches (a pick repeated, or in both, removes a fact already gone).
        const everId = [...stored.keys()];
        const picked = removals.map((pick) => everId[pick % Math.max(1, everId.length)]).filter((id) => id !== undefined);
        for (const batch of [picked.slice(0, picked.length >> 1), picked.slice(picked.length >> 2)]) {
          index.remove(batch);
          for (const id of batch) {
            stored.delete(id);
            expect(index.get(id)).toBeUndefined();
          }
        }
        const all = [...stored.values()];
        expect(index.size).toBe(all.length);
        // Built at once from the stored facts, in their order or reversed (every fact then joins each list before
        // the ones held, as a history imported newest first does): the same index.
        for (const order of [all, [...all].reverse()]) {
          const rebuilt = new FactIndex(order, kept === 'whole' ? undefined : (id) => content.get(id));
          expect(rebuilt.list({ include_inactive: true, limit: Infinity })).toEqual(index.list({ include_inactive: true, limit: Infinity }));
          expect(rebuilt.activeFacts()).toEqual(index.activeFacts());
          for (const [subjectType, subjectId] of SUBJECTS) {
            expect(rebuilt.list({ subject_type: subjectType, subject_id: subjectId ?? undefined, include_inactive: true, limit: Infinity })).toEqual(
              index.list({ subject_type: subjectType, subject_id: subjectId ?? undefined, include_inactive: true, limit: Infinity }),
            );
            for (const predicate of PREDICATES) expect(rebuilt.chain(subjectType, subjectId, predicate)).toEqual(index.chain(subjectType, subjectId, predicate));
          }
          for (const predicate of PREDICATES) expect(rebuilt.list({ predicate, include_inactive: true, limit: Infinity })).toEqual(index.list({ predicate, include_inactive: true, limit: Infinity }));
        }
        expect(index.activeFacts()).toEqual(referenceList(all, { limit: Infinity }));
        for (const f of all) expect(index.get(f.fact_id)).toEqual(f);
        for (const q of queries) {
          const [subject_type, subject_id] = q.subject === undefined ? [undefined, undefined] : SUBJECTS[q.subject]!;
          const query: FactQuery = {
            subject_type,
            subject_id: subject_id ?? undefined,
            predicate: q.predicate === undefined ? undefined : PREDICATES[q.predicate],
            as_of: q.asOf,
            include_inactive: q.includeInactive,
            limit: q.limit,
          };
          expect(index.list(query)).toEqual(referenceList(all, query));
          // Resumed past the last fact of each page of 3: the pages joined are the whole listing.
          expect(ids(walkPages((after) => index.list({ ...query, limit: 3, after }), 3))).toEqual(ids(index.list({ ...query, limit: Infinity })));
        }
        for (const [subjectType, subjectId] of SUBJECTS) {
          const about = referenceList(all, { subject_type: subjectType, subject_id: subjectId ?? undefined, include_inactive: true, limit: Infinity });
          expect(index.list({ subject_type: subjectType, subject_id: subjectId ?? undefined, include_inactive: true, limit: Infinity })).toEqual(about);
          expect(index.keysAbout(subjectType, subjectId).map((key) => key.fact_id).sort()).toEqual(ids(about).sort());
          for (const predicate of PREDICATES) {
            const chain = all
              .filter((f) => f.subject_type === subjectType && f.subject_id === subjectId && f.predicate === predicate)
              .sort(byObservedDesc)
              .reverse();
            expect(index.chain(subjectType, subjectId, predicate)).toEqual(chain);
            expect(ids(index.chain(subjectType, subjectId, predicate, 3))).toEqual(ids(chain.slice(0, 3)));
            expect(ids(walkPages((after) => index.chain(subjectType, subjectId, predicate, 2, after), 2))).toEqual(ids(chain));
            for (const at of [-1, 0, 10, 20, 40, 80]) {
              const near = new Set(index.neighbourhood(subjectType, subjectId, predicate, at).map((f) => f.fact_id));
              const later = chain.filter((f) => f.observed_at > at);
              const needed = [
                ...chain.filter((f) => f.invalid_from === null),
                ...later.filter((f) => f.observed_at === later[0]!.observed_at),
                ...(later.length > 0 ? chain.filter((f) => f.observed_at <= at).slice(-NEIGHBOURS_BEFORE) : []),
              ];
              for (const f of needed) expect(near.has(f.fact_id)).toBe(true);
              // Each with its current key and state (whole, or as much as planning reads when kept small).
              for (const f of index.neighbourhood(subjectType, subjectId, predicate, at)) {
                const { fact_id, observed_at, invalid_from, updated_at } = stored.get(f.fact_id)!;
                expect(f).toMatchObject({ fact_id, observed_at, invalid_from, updated_at });
              }
              expect(near.size).toBe(new Set(ids(needed)).size);
            }
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it('keeps an inactive fact as key and state: a listing reads back only the facts its page returns', () => {
    const read: string[] = [];
    const content = new Map<string, Fact>();
    const index = new FactIndex([], (id) => (read.push(id), content.get(id)));
    // One chain superseded 100 times: 100 inactive versions, one active.
    for (let i = 0; i <= 100; i++) {
      const f = fact(i, 0, 0, i, null);
      content.set(f.fact_id, f);
      if (i > 0) index.upsert({ ...fact(i - 1, 0, 0, i - 1, null), invalid_from: i, updated_at: i });
      index.upsert(f);
    }
    expect(index.activeCount).toBe(1);
    expect(index.size).toBe(101);
    expect(ids(index.list({ limit: 10 }))).toEqual(['fact_0100']);
    expect(index.neighbourhood('owner', null, 'color', 200)).toEqual([fact(100, 0, 0, 100, null)]);
    // An assertion backdated to the start of the chain is planned on the active version and the one after it
    // (which cuts it short), not on the 99 between them; none is read back.
    expect(index.neighbourhood('owner', null, 'color', 0).map((f) => f.fact_id).sort()).toEqual(['fact_0000', 'fact_0001', 'fact_0100']);
    expect(read).toEqual([]);
    const page = index.list({ include_inactive: true, limit: 3, after: { at: 50, id: 'fact_0050' } });
    expect(page).toEqual([49, 48, 47].map((i) => ({ ...fact(i, 0, 0, i, null), invalid_from: i + 1, updated_at: i + 1 })));
    expect(read).toEqual(['fact_0049', 'fact_0048', 'fact_0047']);
    // A fact erased from storage before the index forgets it is left out, not answered half.
    content.delete('fact_0010');
    expect(ids(index.list({ as_of: 10, limit: 5 }))).toEqual([]);
    expect(ids(index.chain('owner', null, 'color', 3, { at: 8, id: 'fact_0008' }))).toEqual(['fact_0009', 'fact_0011', 'fact_0012']);
  });

  it('returns the current version of a fact and keeps it listed once', () => {
    const index = new FactIndex([fact(1, 0, 0, 10, null)]);
    const retracted = { ...fact(1, 0, 0, 10, null), invalid_from: 15 };
    index.upsert(retracted);
    expect(index.get('fact_0001')).toBe(retracted);
    expect(index.list({ limit: 10 })).toEqual([]);
    expect(index.list({ include_inactive: true, limit: 10 })).toEqual([retracted]);
    expect(index.list({ as_of: 12, limit: 10 })).toEqual([retracted]);
    expect(index.list({ as_of: 15, limit: 10 })).toEqual([]);
  });

  it('forgets a removed fact wholly: a later fact of the same subject and predicate starts a chain of its own', () => {
    const first = fact(1, 1, 0, 10, null);
    const index = new FactIndex([first, fact(2, 0, 0, 11, null)]);
    index.remove([first.fact_id, first.fact_id]);
    index.remove([first.fact_id, 'fact_9999']); // already gone, never held: nothing changes
    expect(index.size).toBe(1);
    expect(index.keysAbout('entity', 'e1')).toEqual([]);
    expect(index.chain('entity', 'e1', 'color')).toEqual([]);
    expect(index.neighbourhood('entity', 'e1', 'color', 20)).toEqual([]);
    const later = fact(3, 1, 0, 5, null);
    index.upsert(later);
    expect(index.chain('entity', 'e1', 'color')).toEqual([later]);
    expect(index.list({ subject_type: 'entity', subject_id: 'e1', include_inactive: true, limit: 10 })).toEqual([later]);
    expect(ids(index.list({ limit: 10 }))).toEqual(['fact_0002', 'fact_0003']);
  });
});

describe('FactIndex.neighbourhood as planning reads it', () => {
  it('plans each assertion on its neighbourhood exactly as on the whole chain (histories in any order, with retractions)', () => {
    const step = fc.oneof(
      { weight: 6, arbitrary: fc.record({ kind: fc.constant('assert' as const), at: fc.integer({ min: 0, max: 400 }), multi: fc.boolean() }) },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant('retract' as const), pick: fc.nat() }) },
    );
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 80 }), (steps) => {
        const whole = new Map<string, Fact>();
        const index = new FactIndex();
        let now = 1000;
        const store = (f: Fact) => {
          whole.set(f.fact_id, f);
          index.upsert(f);
        };
        steps.forEach((s, i) => {
          now++;
          if (s.kind === 'retract') {
            const target = [...whole.values()][s.pick % Math.max(1, whole.size)];
            if (target) store(retractFact(target, now));
            return;
          }
          const incoming: FactAssertion = {
            fact_id: `fact_${String(i).padStart(4, '0')}`, entity_id: 'u1', partition: null, subject_type: 'owner', subject_id: null,
            predicate: 'city', value: i, cardinality: s.multi ? 'multi' : 'single', valid_from: null, observed_at: s.at,
          };
          const plan = planAssertion({ chain: [...whole.values()], explicitTarget: null, incoming, now });
          expect(planAssertion({ chain: index.neighbourhood('owner', null, 'city', s.at), explicitTarget: null, incoming, now })).toEqual(plan);
          for (const { fact_id, invalid_from } of plan.invalidations) store(applyInvalidation(whole.get(fact_id)!, invalid_from, now));
          store(plan.fact);
        });
      }),
      { numRuns: 300 },
    );
  });
});
