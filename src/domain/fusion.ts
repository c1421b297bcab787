/**
 * Pure rules of hybrid ranking (DECISIONS.md, Search; docs/search.md says why these).
 *
 * Lexical (BM25) and semantic (cosine) values live on different scales, so each is turned into a z-score
 * against the owner's whole pool of passages (the mean and spread of that value over every passage, not
 * only the candidates). The lexical z-score then counts in proportion to how much of the query the passage
 * holds: its coverage, the share of the query's idf mass among the passage's words. A passage with every
 * rare word of the query is trusted by its words; one that shares a single word of a long question (a
 * distractor that says "drink" to "what does the user like to drink?") is ranked by meaning. Why these
 * constants: docs/search.md, Ranking, measured by bench/retrieval.ts on every set at once.
 */

/** Okapi BM25 constants (the usual ones; the study measured with them). */
export const BM25 = { k1: 1.2, b: 0.75 } as const;

/** The lexical share of the blend for a passage that covers the whole query; the semantic share is the rest. */
export const LEXICAL_WEIGHT = 0.65;

/** How sharply partial coverage lowers the lexical share: the share is `LEXICAL_WEIGHT * coverage ** COVERAGE_POWER`. */
export const COVERAGE_POWER = 2.5;

/** No lexical z-score counts above this: one very rare word shared is evidence, not proof. */
export const LEXICAL_Z_CAP = 8;

/** Mean and standard deviation of a value over a pool. */
export interface PoolStats {
  mean: number;
  std: number;
}

/** Stats of a pool from its count, sum and sum of squares (values absent from the sums count as 0). */
export function poolStats(count: number, sum: number, sumOfSquares: number): PoolStats {
  if (count <= 0) return { mean: 0, std: 0 };
  const mean = sum / count;
  return { mean, std: Math.sqrt(Math.max(0, sumOfSquares / count - mean * mean)) };
}

/** How many standard deviations above the pool's mean; 0 when the pool does not vary. */
export function zScore(value: number, stats: PoolStats): number {
  return stats.std > 1e-12 ? (value - stats.mean) / stats.std : 0;
}

/** BM25's inverse document frequency (the non-negative form used by Lucene). */
export function idf(passages: number, withTerm: number): number {
  return Math.log(1 + (passages - withTerm + 0.5) / (withTerm + 0.5));
}

/** One term's BM25 contribution to a passage with `count` occurrences, of `length` terms. */
export function termScore(termIdf: number, count: number, length: number, meanLength: number): number {
  const { k1, b } = BM25;
  const norm = k1 * (1 - b + (b * length) / (meanLength || 1));
  return (termIdf * count * (k1 + 1)) / (count + norm);
}

/** The fused value of a passage: its semantic z-score and its lexical z-score weighed by its coverage (0-1) of the query. */
export function fused(cosineZ: number, lexicalZ: number, coverage: number): number {
  return (1 - LEXICAL_WEIGHT) * cosineZ + LEXICAL_WEIGHT * Math.min(lexicalZ, LEXICAL_Z_CAP) * coverage ** COVERAGE_POWER;
}

/**
 * `score` of a `hybrid` or `lexical` hit: a fused (or lexical) z-value mapped onto 0-100 by a logistic
 * curve centred at 2 (a passage two standard deviations above the pool scores 50, three above ~73, five
 * above ~95), rounded to 2 decimals. Monotone, so results ordered by value are ordered by score.
 */
export function zToScore(value: number): number {
  return Math.round(10000 / (1 + Math.exp(-(value - 2)))) / 100;
}
