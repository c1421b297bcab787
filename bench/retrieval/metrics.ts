/** Ranked lists are cut at this depth: recall@10 and MRR over the top 10. */
export const DEPTH = 10;

/** 1-based rank of `target` in `ranked` within the top DEPTH, or null when it is not there. */
export function rankOf(ranked: readonly number[], target: number): number | null {
  const i = ranked.slice(0, DEPTH).indexOf(target);
  return i < 0 ? null : i + 1;
}

export interface Scores {
  queries: number;
  recall1: number;
  recall5: number;
  recall10: number;
  /** Mean reciprocal rank over the top DEPTH (a target below it counts 0). */
  mrr: number;
}

/** Recall@1/5/10 and MRR of one query per rank (null: the target was not in the top DEPTH). */
export function score(ranks: ReadonlyArray<number | null>): Scores {
  const n = ranks.length;
  const within = (k: number) => (n === 0 ? 0 : ranks.filter((r) => r !== null && r <= k).length / n);
  const mrr = n === 0 ? 0 : ranks.reduce<number>((sum, r) => sum + (r === null || r > DEPTH ? 0 : 1 / r), 0) / n;
  return { queries: n, recall1: within(1), recall5: within(5), recall10: within(DEPTH), mrr };
}
