/** How many predicates each owner's assertions cycle through. */
export const PREDICATES = 20;

/**
 * The body of the `i`-th fact assertion the HTTP benchmarks send (bench:facts, bench:instructions,
 * bench:encryption, bench:profile): one of `PREDICATES` predicates of the owner, a new value each time, so
 * that every assertion supersedes an earlier one.
 */
export function factBody(i: number): string {
  return JSON.stringify({ predicate: `p${i % PREDICATES}`, value: `value-${i}`, subject_type: 'owner' });
}

/** The `i`-th assertion as a request: `factBody(i)` to one of `owners` owners in turn. */
export function factRequest(i: number, owners = 100): { path: string; body: string } {
  return { path: `/v1/memory/facts?entity_id=owner-${i % owners}`, body: factBody(i) };
}

/**
 * A `POST /v1/memory/batch` body of `size` assertions about the owner (bench:batch, bench:profile): the
 * `PREDICATES` asserted in turn, so that all but the first assertion of each supersede one before them.
 */
export function batchBody(size: number): string {
  return JSON.stringify({ operations: Array.from({ length: size }, (_, i) => ({ op: 'assert_fact', predicate: `p${i % PREDICATES}`, value: `value-${i}` })) });
}

/**
 * A `POST /v1/memory/batch` body of one predicate asserted `size` times, as importing a user's history of
 * it sends (bench:batch): each assertion supersedes the one before it.
 */
export function historyBody(size: number): string {
  return JSON.stringify({ operations: Array.from({ length: size }, (_, i) => ({ op: 'assert_fact', predicate: 'city', value: `city-${i}` })) });
}
