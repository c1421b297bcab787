import { z } from 'zod';
// The `.meta()` keys of the OpenAPI document (`override`, `id`): zod-openapi extends zod's metadata type.
import type {} from 'zod-openapi';
import { ID_PATTERN, ID_RULE } from '../../domain/ids.js';
import { describeJsonKind, isScalar, type Scalar } from '../../domain/scalar.js';
import { parseTimestamp, timestampRule } from '../../domain/time.js';

/** Longest string a scalar value may hold. */
export const MAX_SCALAR_STRING = 16 * 1024;

/** Memory-route list limits (DECISIONS.md): default 100, at most 1000. */
export const LIST_LIMIT_DEFAULT = 100;
export const LIST_LIMIT_MAX = 1000;

export const IdSchema = z.string().regex(ID_PATTERN, ID_RULE);

/** `entity_id`: the owner, 1 to 256 characters. */
export const OwnerIdSchema = z
  .string()
  .min(1, 'must not be empty')
  .max(256, 'must be at most 256 characters');

export const PartitionSchema = z
  .string()
  .min(1, 'must not be empty (omit it instead)')
  .max(256, 'must be at most 256 characters');

/** A caller-controlled name: a type, a predicate. */
export const NameSchema = (max = 256) =>
  z.string().min(1, 'must not be empty').max(max, `must be at most ${max} characters`);

/** RFC 3339 with an offset, in years 0000-9999 once the offset is applied → epoch milliseconds. */
export const TimestampSchema = z
  .string()
  .transform((text, ctx) => {
    const ms = parseTimestamp(text);
    if (ms === null) {
      ctx.addIssue({ code: 'custom', message: `${timestampRule(text)}, got ${JSON.stringify(text.slice(0, 64))}` });
      return z.NEVER;
    }
    return ms;
  })
  .meta({ override: { type: 'string', format: 'date-time', description: 'RFC 3339 with a time zone offset (Z or ±hh:mm).' } });

/**
 * A query parameter is text on the wire, parsed by its schema; the OpenAPI document shows the type the
 * text stands for (a boolean, an integer), which is what clients and their generators pass.
 */
export function documentedAs<T extends z.ZodType>(schema: T, shown: Record<string, unknown>): T {
  return schema.meta({
    override: ({ jsonSchema }) => {
      for (const key of Object.keys(jsonSchema)) delete (jsonSchema as Record<string, unknown>)[key];
      Object.assign(jsonSchema, shown);
    },
  });
}

/** The scalar rule; the key must be present even when the value is null. */
export const ScalarSchema = z.unknown().transform((value, ctx): Scalar => {
  if (value === undefined) {
    ctx.addIssue({ code: 'custom', message: 'is required' });
    return z.NEVER;
  }
  if (!isScalar(value)) {
    ctx.addIssue({ code: 'custom', message: `must be scalar: got ${describeJsonKind(value)}` });
    return z.NEVER;
  }
  if (typeof value === 'string' && value.length > MAX_SCALAR_STRING) {
    ctx.addIssue({ code: 'custom', message: `must be at most ${MAX_SCALAR_STRING} characters` });
    return z.NEVER;
  }
  return value;
}).meta({ override: { type: ['string', 'number', 'boolean', 'null'], description: 'A string (at most 16384 characters), number, boolean or null.' } });

export const ScalarMapSchema = z
  .record(NameSchema(128), ScalarSchema)
  .refine((map) => Object.keys(map).length <= 128, 'must have at most 128 keys');

/** Query booleans are exactly `true` or `false`. */
export const QueryBoolSchema = documentedAs(
  z.enum(['true', 'false'], { error: 'must be true or false' }).transform((v) => v === 'true'),
  { type: 'boolean' },
);

export const QueryLimitSchema = documentedAs(
  z
    .string()
    .regex(/^\d{1,7}$/, 'must be an integer')
    .transform(Number)
    .pipe(z.number().int().min(1, 'must be at least 1').max(LIST_LIMIT_MAX, `must be at most ${LIST_LIMIT_MAX}`)),
  { type: 'integer', minimum: 1, maximum: LIST_LIMIT_MAX, default: LIST_LIMIT_DEFAULT },
);

/** The common query parameters of every memory route. */
export const ownerQueryShape = {
  entity_id: OwnerIdSchema,
  partition: PartitionSchema.optional(),
};
