import type { FactCommand } from '../../src/actors/owner-facts.js';

let counter = 0;

/** A fact command about the owner itself, as the route would build it: a fresh id each time, in order. */
export const factCommand = (predicate: string, value: string, extra: Partial<FactCommand> = {}): FactCommand => ({
  fact_id: `fact_${String(counter++).padStart(6, '0')}`,
  subject_type: 'owner',
  subject_id: null,
  predicate,
  value,
  cardinality: 'single',
  valid_from: null,
  ...extra,
});
