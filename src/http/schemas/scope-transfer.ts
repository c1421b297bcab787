import { z } from 'zod';
import { TRANSFER_STATES } from '../../placement/scope-transfers.js';
import { LIST_LIMIT_MAX, PartitionSchema } from './common.js';

/** The scope of a move: the key's tenant, and the partition for a tenant placed by partition. */
export const TransferQuerySchema = z.strictObject({ partition: PartitionSchema.optional() });

export const TransferPutBodySchema = z.strictObject({ state: z.enum(TRANSFER_STATES) });

export const TransferOwnersQuerySchema = z.strictObject({
  partition: PartitionSchema.optional(),
  /** `next` of the previous page. */
  cursor: z.string().max(4096).optional(),
  limit: z.coerce.number().int().min(1).max(LIST_LIMIT_MAX).default(LIST_LIMIT_MAX),
});
