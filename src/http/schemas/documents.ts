import { z } from 'zod';
import { parseReaders } from '../../domain/document-records.js';
import { LIST_LIMIT_DEFAULT, NameSchema, ownerQueryShape, QueryBoolSchema, QueryLimitSchema, ScalarMapSchema } from './common.js';

export { LIST_LIMIT_DEFAULT };

/** `readers`: a CSV of principals (at most 100, each at most 256 characters). */
export const ReadersSchema = z.string().transform((csv, ctx) => {
  const readers = parseReaders(csv);
  if (readers === null) {
    ctx.addIssue({ code: 'custom', message: 'must name at least one principal (a comma-separated list)' });
    return z.NEVER;
  }
  if (readers.length > 100 || readers.some((r) => r.length > 256)) {
    ctx.addIssue({ code: 'custom', message: 'must list at most 100 principals of at most 256 characters each' });
    return z.NEVER;
  }
  return readers;
});

export const DocumentWriteQuerySchema = z.strictObject({ ...ownerQueryShape, readers: ReadersSchema.optional() });

export const TagsSchema = z.array(NameSchema(256)).max(100, 'must have at most 100 items');

export const DOCUMENT_CONTENT_TYPES = ['text/plain', 'text/markdown'] as const;

export const DocumentBodySchema = z.strictObject({
  content: z.string(),
  title: NameSchema(1024).optional(),
  content_type: z.enum(DOCUMENT_CONTENT_TYPES, { error: `must be one of ${DOCUMENT_CONTENT_TYPES.join(', ')}` }).optional(),
  metadata: ScalarMapSchema.optional(),
  tags: TagsSchema.optional(),
  source: NameSchema(1024).optional(),
});

const QueryOffsetSchema = z
  .string()
  .regex(/^\d{1,9}$/, 'must be a non-negative integer')
  .transform(Number);

export const DocumentListQuerySchema = z.strictObject({
  ...ownerQueryShape,
  limit: QueryLimitSchema.optional(),
  offset: QueryOffsetSchema.optional(),
  include_deleted: QueryBoolSchema.optional(),
});

export const DocumentDeleteQuerySchema = z.strictObject({ ...ownerQueryShape, hard: QueryBoolSchema.optional() });
