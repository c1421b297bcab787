/**
 * Keyset paging of the memory lists (DECISIONS.md, Memory routes). Every list is ordered by an instant and
 * then the record id (entities by `created_at`, relationships and facts by `observed_at`), so a position is
 * that pair: the next page starts strictly past the last record returned. A record added between pages
 * lands before or after the position and is seen or not, but no record is ever repeated or skipped, and a
 * page costs what it reads, never the records before it.
 */
export interface ListPosition {
  at: number;
  id: string;
}

/**
 * A page out of `fetched`, read with `limit + 1` as its limit: the extra record only tells that there is a
 * next page, so `next` is null exactly on the last one (never a position that leads to an empty page).
 */
export function pageOf<T>(fetched: T[], limit: number, position: (record: T) => ListPosition): { page: T[]; next: ListPosition | null } {
  if (fetched.length <= limit) return { page: fetched, next: null };
  const page = fetched.slice(0, limit);
  return { page, next: position(page[page.length - 1]!) };
}

export const entityPosition = (e: { created_at: number; memory_entity_id: string }): ListPosition => ({ at: e.created_at, id: e.memory_entity_id });
export const relationshipPosition = (r: { observed_at: number; relationship_id: string }): ListPosition => ({ at: r.observed_at, id: r.relationship_id });
export const factPosition = (f: { observed_at: number; fact_id: string }): ListPosition => ({ at: f.observed_at, id: f.fact_id });
