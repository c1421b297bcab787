import { z } from 'zod';
import { FIELD_NAME_PATTERN, FIELD_NAME_RULE, FIELD_TYPES, isBuiltinField, MAX_REGEX_LENGTH, patternError, RESERVED_FIELD_NAMES } from '../../query/service.js';
import { PartitionSchema } from './common.js';

export const MAX_FIELDS_PER_PUT = 64;

export const FieldNameSchema = z
  .string()
  .regex(FIELD_NAME_PATTERN, FIELD_NAME_RULE)
  .refine((name) => !isBuiltinField(name), { message: 'is a built-in field name; choose another name' })
  .refine((name) => !RESERVED_FIELD_NAMES.has(name), { message: 'is reserved (a member of JavaScript objects, such as __proto__ or constructor); choose another name' });

const FieldSourceSchema = z.union([
  z.strictObject({ metadata: z.string().min(1, 'must not be empty').max(128, 'must be at most 128 characters') }),
  z.strictObject({
    regex: z
      .string()
      .min(1, 'must not be empty')
      .max(MAX_REGEX_LENGTH, `must be at most ${MAX_REGEX_LENGTH} characters`)
      .superRefine((pattern, ctx) => {
        const error = patternError(pattern);
        if (error) ctx.addIssue({ code: 'custom', message: `is not a pattern the RE2 engine accepts: ${error}` });
      }),
  }),
], { error: 'must be { metadata: <key> } or { regex: <pattern> }' });

export const FieldDeclarationSchema = z.strictObject({
  name: FieldNameSchema,
  type: z.enum(FIELD_TYPES, { error: `must be one of ${FIELD_TYPES.join(', ')}` }),
  source: FieldSourceSchema,
  partition_scope: PartitionSchema.nullable().optional(),
});

export const SchemaPutBodySchema = z.strictObject({
  fields: z.array(FieldDeclarationSchema).min(1, 'must hold at least one field').max(MAX_FIELDS_PER_PUT, `must hold at most ${MAX_FIELDS_PER_PUT} fields`),
});

export const SchemaQuerySchema = z.strictObject({ partition: PartitionSchema.optional() });
