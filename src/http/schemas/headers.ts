import { z } from 'zod';
import { IDEMPOTENCY_KEY_PATTERN, IDEMPOTENCY_KEY_RULE } from '../../domain/idempotency.js';

/**
 * The `Idempotency-Key` request header of the POSTs that write (src/http/idempotency.ts). One pattern holds
 * the length too, so a bad key is told one rule, once.
 */
export const IdempotencyKeySchema = z.string().regex(IDEMPOTENCY_KEY_PATTERN, IDEMPOTENCY_KEY_RULE);
