import { z } from 'zod';
import { NameSchema, ScalarMapSchema } from './common.js';
import { TagsSchema } from './documents.js';

/**
 * The media body. Sizes (payload, caption, transcript) are checked after parsing so they can answer 413;
 * the agreement of modality, MIME type and magic bytes is checked by `judgeMedia`.
 */
export const MediaBodySchema = z.strictObject({
  modality: z.enum(['image', 'audio'], { error: 'must be image or audio' }),
  data_base64: z.string().min(1, 'must not be empty'),
  content_type: z.string().min(1, 'must not be empty').max(256, 'must be at most 256 characters'),
  filename: NameSchema(1024).optional(),
  caption: z.string().optional(),
  transcript: z.string().optional(),
  tags: TagsSchema.optional(),
  metadata: ScalarMapSchema.optional(),
  source: NameSchema(1024).optional(),
});
export type MediaBody = z.infer<typeof MediaBodySchema>;
