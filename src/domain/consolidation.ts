import type { Fact } from './facts.js';
import type { Scalar } from './scalar.js';

/** The consolidation report (spec: Consolidation report). Counts only, never fact values. */
export interface ConsolidationReport {
  active_facts_before: number;
  active_facts_after: number;
  retracted: number;
}

export type RetractionReason = 'duplicate' | 'inactive_relationship';

export interface ConsolidationPlan {
  /** Facts to soft-retract, each once, in the order they were given. */
  retract: Array<{ fact: Fact; reason: RetractionReason }>;
  report: ConsolidationReport;
}

export interface ConsolidationInput {
  /** The scope's active facts (any order). Inactive facts are ignored. */
  facts: readonly Fact[];
  /** Ids of the scope's relationships that are still active; a fact about any other relationship goes. */
  activeRelationshipIds: ReadonlySet<string>;
}

/**
 * Decides what consolidation retracts (DECISIONS.md, Facts):
 * - facts about a relationship that is no longer active (or no longer exists) are retracted;
 * - among the remaining facts with the same subject, predicate and normalised value, the earliest
 *   observed stays (ties: the earliest minted id) and the others are retracted.
 * Running it on its own result retracts nothing, because the survivors have pairwise distinct keys.
 */
export function planConsolidation({ facts, activeRelationshipIds }: ConsolidationInput): ConsolidationPlan {
  const active = facts.filter((f) => f.invalid_from === null);
  const keepers = new Map<string, Fact>();
  const reasons = new Map<string, RetractionReason>();

  for (const fact of active) {
    if (fact.subject_type === 'relationship' && !activeRelationshipIds.has(fact.subject_id ?? '')) {
      reasons.set(fact.fact_id, 'inactive_relationship');
      continue;
    }
    const key = redundancyKey(fact);
    const kept = keepers.get(key);
    if (!kept) {
      keepers.set(key, fact);
    } else if (observedBefore(fact, kept)) {
      reasons.set(kept.fact_id, 'duplicate');
      keepers.set(key, fact);
    } else {
      reasons.set(fact.fact_id, 'duplicate');
    }
  }

  const retract = active.filter((f) => reasons.has(f.fact_id)).map((fact) => ({ fact, reason: reasons.get(fact.fact_id)! }));
  return {
    retract,
    report: {
      active_facts_before: active.length,
      active_facts_after: active.length - retract.length,
      retracted: retract.length,
    },
  };
}

/**
 * Normalises a value for redundancy: strings NFC-normalised, trimmed, case-folded, inner whitespace
 * collapsed; numbers and booleans by value. The type tag keeps `"1"`, `1` and `true` apart.
 */
export function normaliseValue(value: Scalar): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return `s:${value.normalize('NFC').trim().replace(/\s+/gu, ' ').toLowerCase()}`;
  if (typeof value === 'number') return `n:${value === 0 ? 0 : value}`; // -0 and 0 are one value
  return `b:${value}`;
}

/** Facts with equal keys say the same thing about the same subject. */
export function redundancyKey(fact: Fact): string {
  return JSON.stringify([fact.subject_type, fact.subject_id, fact.predicate, normaliseValue(fact.value)]);
}

function observedBefore(a: Fact, b: Fact): boolean {
  return a.observed_at < b.observed_at || (a.observed_at === b.observed_at && a.fact_id < b.fact_id);
}
