import { z } from 'zod';
import { parseReaders } from '../../domain/document-records.js';
import { documentedAs, LIST_LIMIT_DEFAULT, NameSchema, ownerQueryShape, QueryBoolSchema, QueryLimitSchema, ScalarMapSchema } from './common.js';

export { LIST_LIMIT_DEFAULT };

/** `readers`: a CSV of principals (at most 100, each at most 256 characters). */
export const ReadersSchema = z.string().meta({ description: 'Comma-separated principals that alone may read the record.' }).transform((csv, ctx) => {
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

/** Readers given in a body: 1 to 100 principals of at most 256 characters (as the `readers` query CSV). */
const BodyReadersSchema = z
  .array(z.string().trim().min(1, 'must not be empty').max(256, 'must be at most 256 characters'))
  .min(1, 'must name at least one principal')
  .max(100, 'must have at most 100 items');

export const DOCUMENT_BATCH_MAX = 100;

/** `POST /v1/documents/batch` (DECISIONS.md, Bulk writes): 1 to 100 document bodies, each with its own readers. */
export const DocumentBatchBodySchema = z.strictObject({
  documents: z
    .array(DocumentBodySchema.extend({ readers: BodyReadersSchema.optional() }))
    .min(1, 'must not be empty')
    .max(DOCUMENT_BATCH_MAX, `must have at most ${DOCUMENT_BATCH_MAX} documents`),
});

const QueryOffsetSchema = documentedAs(z.string().regex(/^\d{1,9}$/, 'must be a non-negative integer').transform(Number), {
  type: 'integer',
  minimum: 0,
  default: 0,
});

export const DocumentListQuerySchema = z.strictObject({
  ...ownerQueryShape,
  limit: QueryLimitSchema.optional(),
  offset: QueryOffsetSchema.optional(),
  include_deleted: QueryBoolSchema.optional(),
});

export const DocumentDeleteQuerySchema = z.strictObject({ ...ownerQueryShape, hard: QueryBoolSchema.optional() });
