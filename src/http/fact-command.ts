import type { z } from 'zod';
import type { FactCommand } from '../actors/owner-actor.js';
import { checkObservedAt } from '../domain/facts.js';
import { mintId } from '../ids.js';
import type { FactBodySchema } from './schemas/memory.js';

/**
 * A fact assertion's body (`POST /v1/memory/facts`, or an `assert_fact` of a batch) as the owner's actor
 * takes it: a new `fact_id`, absent ids and times as null, and `observed_at` within its bound of `now`.
 */
export function factCommand(body: z.output<typeof FactBodySchema>, now: number, observedAtMaxSkewMs: number): FactCommand {
  if (body.observed_at !== undefined) checkObservedAt(body.observed_at, now, observedAtMaxSkewMs);
  return {
    fact_id: mintId('fact'),
    subject_type: body.subject_type,
    subject_id: body.subject_id ?? null,
    predicate: body.predicate,
    value: body.value,
    cardinality: body.cardinality,
    valid_from: body.valid_from ?? null,
    observed_at: body.observed_at,
    supersedes_fact_id: body.supersedes_fact_id,
  };
}
