import { z } from 'zod';
import { AGGREGATE_OPS } from '../../query/service.js';
import { PartitionSchema } from './common.js';

const NameSchema = z.string().min(1, 'must not be empty').max(128, 'must be at most 128 characters');

/**
 * Shape of `POST /v1/query`. The filter tree and the rules that need the field schema (types,
 * operators, literals, caps) are checked by the query compiler, whose messages name the field.
 */
export const QueryBodySchema = z.strictObject({
  filter: z
    .unknown()
    .optional()
    .meta({ description: 'A filter tree: `{ and: [F, ...] }`, `{ or: [F, ...] }`, `{ not: F }`, or a leaf `{ field, op, value }` (docs/query.md).' }),
  sort: z.array(z.strictObject({ by: NameSchema, dir: z.enum(['asc', 'desc'], { error: 'must be asc or desc' }).optional() })).max(8, 'must hold at most 8 keys').optional(),
  limit: z.number().int('must be an integer').optional(),
  offset: z.number().int('must be an integer').min(0, 'must be at least 0').max(1_000_000, 'must be at most 1000000').optional(),
  group_by: z.array(NameSchema).optional(),
  aggregate: z
    .array(
      z.strictObject({
        op: z.enum(AGGREGATE_OPS, { error: `must be one of ${AGGREGATE_OPS.join(', ')}` }),
        field: NameSchema.optional(),
        as: NameSchema.optional(),
      }),
    )
    .optional(),
  partition: PartitionSchema.optional(),
});
export type QueryBody = z.infer<typeof QueryBodySchema>;

export const QueryQuerySchema = z.strictObject({ partition: PartitionSchema.optional() });
