/** Pure ranking rules of search (DECISIONS.md, Search). */

/** `score = round(100 * max(0, 1 - distance), 2)`. */
export function scoreOf(distance: number): number {
  return Math.round(100 * Math.max(0, 1 - distance) * 100) / 100;
}

/** One scored passage of the index. */
export interface PassageHit {
  label: number;
  docId: string;
  distance: number;
}

/**
 * Keeps each document's best passage, best first (ties by doc id so pages are stable), drops those beyond
 * `maxDistance`, and returns at most `k`.
 */
export function bestPerDocument<T extends PassageHit>(hits: T[], k: number, maxDistance?: number): T[] {
  const best = new Map<string, T>();
  for (const hit of hits) {
    if (maxDistance !== undefined && hit.distance > maxDistance) continue;
    const seen = best.get(hit.docId);
    if (!seen || hit.distance < seen.distance) best.set(hit.docId, hit);
  }
  return [...best.values()]
    .sort((a, b) => a.distance - b.distance || (a.docId < b.docId ? -1 : a.docId > b.docId ? 1 : 0))
    .slice(0, k);
}
