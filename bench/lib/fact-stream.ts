/**
 * The body of the `i`-th fact assertion the HTTP benchmarks send (bench:facts, bench:instructions): one of
 * 20 predicates of the owner, a new value each time, so that every assertion supersedes an earlier one.
 */
export function factBody(i: number): string {
  return JSON.stringify({ predicate: `p${i % 20}`, value: `value-${i}`, subject_type: 'owner' });
}
