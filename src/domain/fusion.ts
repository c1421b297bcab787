/**
 * Pure rules of hybrid ranking (DECISIONS.md, Search; docs/search.md says why these).
 *
 * Lexical (BM25) and semantic (cosine) values live on different scales, so each is turned into a z-score
 * against the owner's whole pool of passages (the mean and spread of that value over every passage, not
 * only the candidates), and the two are blended with a fixed lexical weight (docs/search.md, Ranking).
 */

/** Okapi BM25 constants (the usual ones; the study measured with them). */
export const BM25 = { k1: 1.2, b: 0.75 } as const;

/**
 * The lexical share of the blend; the semantic share is `1 - LEXICAL_WEIGHT`. On conversational memory the
 * blend beats both retrievers alone from a share of about 0.3 up to 0.4 (0.2 loses summaries to the dense
 * retriever); on paraphrased questions 0.4 drops one target of 80 out of the top 5. 0.35 keeps both.
 */
export const LEXICAL_WEIGHT = 0.35;

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

/** The fused value of a passage: its semantic and lexical z-scores blended. */
export function fused(cosineZ: number, lexicalZ: number): number {
  return (1 - LEXICAL_WEIGHT) * cosineZ + LEXICAL_WEIGHT * lexicalZ;
}

/**
 * `score` of a `hybrid` or `lexical` hit: a fused (or lexical) z-value mapped onto 0-100 by a logistic
 * curve centred at 2 (a passage two standard deviations above the pool scores 50, three above ~73, five
 * above ~95), rounded to 2 decimals. Monotone, so results ordered by value are ordered by score.
 */
export function zToScore(value: number): number {
  return Math.round(10000 / (1 + Math.exp(-(value - 2)))) / 100;
}
