import { z } from 'zod';
import { IdSchema } from './common.js';
import { checkSubject, entityBodyShape, factBodyShape, relationshipBodyShape } from './memory.js';

/** Most operations one `POST /v1/memory/batch` takes (DECISIONS.md, Bulk writes). */
export const MEMORY_BATCH_MAX = 1000;

export const MEMORY_BATCH_OPS = ['upsert_entity', 'upsert_relationship', 'assert_fact', 'retract_fact', 'retract_relationship'] as const;

/** One operation: `op` and the fields of its single route (the body, or the id its DELETE takes). */
export const MemoryOperationSchema = z.discriminatedUnion(
  'op',
  [
    z.strictObject({ op: z.literal('upsert_entity'), ...entityBodyShape }).meta({ id: 'UpsertEntityOperation' }),
    z.strictObject({ op: z.literal('upsert_relationship'), ...relationshipBodyShape }).meta({ id: 'UpsertRelationshipOperation' }),
    z.strictObject({ op: z.literal('assert_fact'), ...factBodyShape }).superRefine(checkSubject).meta({ id: 'AssertFactOperation' }),
    z.strictObject({ op: z.literal('retract_fact'), fact_id: IdSchema }).meta({ id: 'RetractFactOperation' }),
    z.strictObject({ op: z.literal('retract_relationship'), relationship_id: IdSchema }).meta({ id: 'RetractRelationshipOperation' }),
  ],
  { error: `op must be one of ${MEMORY_BATCH_OPS.join(', ')}` },
);

export type MemoryOperation = z.output<typeof MemoryOperationSchema>;

export const MemoryBatchBodySchema = z.strictObject({
  operations: z
    .array(MemoryOperationSchema)
    .min(1, 'must not be empty')
    .max(MEMORY_BATCH_MAX, `must have at most ${MEMORY_BATCH_MAX} operations`)
    .meta({ description: 'Applied in order, all or nothing, in one transaction; later operations may name records of earlier ones by the ids the caller gave them.' }),
});
