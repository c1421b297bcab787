import { invalidInput } from '../errors.js';
import type { Scalar } from './scalar.js';
import { formatTimestamp } from './time.js';

export const SUBJECT_TYPES = ['owner', 'entity', 'relationship'] as const;
export type SubjectType = (typeof SUBJECT_TYPES)[number];
export const CARDINALITIES = ['single', 'multi'] as const;
export type Cardinality = (typeof CARDINALITIES)[number];

/** A stored fact. Instants are epoch milliseconds; `invalid_from` null means active. */
export interface Fact {
  fact_id: string;
  entity_id: string;
  partition: string | null;
  subject_type: SubjectType;
  subject_id: string | null;
  predicate: string;
  value: Scalar;
  cardinality: Cardinality;
  valid_from: number | null;
  observed_at: number;
  invalid_from: number | null;
  supersedes_fact_id: string | null;
  created_at: number;
  updated_at: number;
}

/** A fact version's key and state: what planning an assertion reads of the facts of its chain. */
export type FactVersionState = Pick<Fact, 'fact_id' | 'observed_at' | 'invalid_from' | 'updated_at'>;

/** A fact's id and subject: what erasing the facts about a subject needs of them. */
export type FactKey = Pick<Fact, 'fact_id' | 'subject_type' | 'subject_id'>;

/** What a caller asserts, already validated and given its id and observation instant. */
export type FactAssertion = Omit<Fact, 'invalid_from' | 'supersedes_fact_id' | 'created_at' | 'updated_at'>;

export interface Invalidation {
  fact_id: string;
  invalid_from: number;
}

export interface AssertionPlan {
  fact: Fact;
  invalidations: Invalidation[];
}

export interface AssertionInput {
  /** The stored facts (active or not) with the incoming fact's subject and predicate that it can affect. */
  chain: readonly FactVersionState[];
  /** The fact named by `supersedes_fact_id`, when the caller named one. */
  explicitTarget: Fact | null;
  incoming: FactAssertion;
  now: number;
}

/**
 * Decides what an assertion changes, without touching anything.
 *
 * - `multi` facts coexist; only an explicit `supersedes_fact_id` retires another fact.
 * - A `single` fact observed at or after every active fact of its subject and predicate supersedes them
 *   all: each gets `invalid_from` = the new fact's `observed_at` (no gap, no overlap).
 * - A `single` fact observed before the active one (out of order) does not displace it: it slots into
 *   the timeline, valid until the next observation, and cuts short the fact that was active at its
 *   instant, so `as_of` at any instant yields one value.
 */
export function planAssertion({ chain, explicitTarget, incoming, now }: AssertionInput): AssertionPlan {
  const at = incoming.observed_at;
  // An array, not a map: an assertion invalidates one fact or a few, and this runs hundreds of times per batch.
  const invalidations: Invalidation[] = [];
  let supersedes: string | null = null;
  let invalidFrom: number | null = null;

  if (explicitTarget) {
    if (explicitTarget.invalid_from !== null) {
      throw invalidInput(`supersedes_fact_id ${explicitTarget.fact_id} is not an active fact`);
    }
    if (at < explicitTarget.observed_at) {
      throw invalidInput(`observed_at must not be earlier than the observed_at of superseded fact ${explicitTarget.fact_id}`);
    }
    invalidations.push({ fact_id: explicitTarget.fact_id, invalid_from: at });
    supersedes = explicitTarget.fact_id;
  }

  if (incoming.cardinality === 'single') {
    // Loops rather than filtered copies: this runs for every assertion, hundreds per batch.
    let newerActive = false;
    for (const f of chain) if (stillActive(f, invalidations) && f.observed_at > at) newerActive = true;
    if (!newerActive) {
      let latestActive: FactVersionState | undefined;
      for (const f of chain) {
        if (!stillActive(f, invalidations)) continue;
        if (!latestActive || byObservedDesc(f, latestActive) < 0) latestActive = f;
        invalidations.push({ fact_id: f.fact_id, invalid_from: at });
      }
      supersedes ??= latestActive?.fact_id ?? null;
    } else {
      const successor = earliest(chain.filter((f) => f.observed_at > at));
      invalidFrom = successor ? successor.observed_at : null;
      const predecessor = latest(
        chain.filter((f) => f.observed_at <= at && f.invalid_from !== null && f.invalid_from > at),
      );
      if (predecessor && !invalidations.some((i) => i.fact_id === predecessor.fact_id)) {
        invalidations.push({ fact_id: predecessor.fact_id, invalid_from: at });
      }
      if (predecessor) {
        supersedes ??= predecessor.fact_id;
        invalidFrom = Math.min(invalidFrom ?? Infinity, predecessor.invalid_from ?? Infinity);
      }
    }
  }

  return {
    // Built field by field, not spread: one object shape for every fact, and no copy of a dictionary.
    fact: {
      fact_id: incoming.fact_id,
      entity_id: incoming.entity_id,
      partition: incoming.partition,
      subject_type: incoming.subject_type,
      subject_id: incoming.subject_id,
      predicate: incoming.predicate,
      value: incoming.value,
      cardinality: incoming.cardinality,
      valid_from: incoming.valid_from,
      observed_at: incoming.observed_at,
      invalid_from: invalidFrom,
      supersedes_fact_id: supersedes,
      created_at: now,
      updated_at: now,
    },
    invalidations,
  };
}

/** Active, and not among the invalidations already planned. */
function stillActive(f: FactVersionState, invalidations: readonly Invalidation[]): boolean {
  if (f.invalid_from !== null) return false;
  for (const i of invalidations) if (i.fact_id === f.fact_id) return false;
  return true;
}

/**
 * `observed_at` is transaction time, when the service learned the fact: a caller may back-date it, but not
 * date it ahead of the service clock by more than `maxSkewMs` (callers' clocks drift). A fact observed in
 * the future would outrank every assertion of its predicate until then, and `as_of` now would disagree
 * with the active list. When a fact becomes true in the world is `valid_from`, which may be in the future.
 */
export function checkObservedAt(observedAt: number, now: number, maxSkewMs: number): void {
  const latestAllowed = now + maxSkewMs;
  if (observedAt <= latestAllowed) return;
  throw invalidInput(
    `observed_at must be at most ${maxSkewMs} ms after the service clock (OBSERVED_AT_MAX_SKEW_MS): at most ` +
      `${formatTimestamp(latestAllowed)}, got ${formatTimestamp(observedAt)}; send when the fact becomes true as valid_from`,
  );
}

/** Soft retraction: sets `invalid_from` (never earlier than the fact's own observation). Idempotent. */
export function retractFact(fact: Fact, now: number): Fact {
  if (fact.invalid_from !== null) return fact;
  return { ...fact, invalid_from: Math.max(now, fact.observed_at), updated_at: now };
}

/** Applies an invalidation to a stored fact. An earlier instant may shorten, never lengthen, a fact. */
export function applyInvalidation(fact: Fact, invalidFrom: number, now: number): Fact {
  const next = fact.invalid_from === null ? invalidFrom : Math.min(fact.invalid_from, invalidFrom);
  return next === fact.invalid_from ? fact : { ...fact, invalid_from: next, updated_at: now };
}

/** Order of fact listings: `observed_at` descending, then id descending (newest mint first). */
export function byObservedDesc(a: FactPosition, b: FactPosition): number {
  return b.observed_at - a.observed_at || (a.fact_id < b.fact_id ? 1 : a.fact_id > b.fact_id ? -1 : 0);
}

function latest<T extends FactPosition>(facts: readonly T[]): T | undefined {
  let found: T | undefined;
  for (const f of facts) if (!found || byObservedDesc(f, found) < 0) found = f;
  return found;
}

function earliest<T extends FactPosition>(facts: readonly T[]): T | undefined {
  let found: T | undefined;
  for (const f of facts) if (!found || byObservedDesc(f, found) > 0) found = f;
  return found;
}

/** Where a fact stands in a listing's order. */
type FactPosition = Pick<Fact, 'observed_at' | 'fact_id'>;
