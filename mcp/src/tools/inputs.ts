/**
 * The input rules of the REST routes (src/http/schemas/*.ts of the service), mirrored so that a tool refuses
 * bad input with a precise message before any request, and so that its JSON Schema tells the model the limits.
 * No transforms: a tool's arguments are passed on as the model sent them.
 */
import { z } from 'zod';

/** Ids in paths and bodies (DECISIONS.md, Identifiers). */
export const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;
export const IdSchema = z.string().regex(ID_PATTERN, 'must match ^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$');

/** `entity_id`: the owner, 1 to 256 characters. */
export const OwnerIdSchema = z.string().min(1, 'must not be empty').max(256, 'must be at most 256 characters');
export const PartitionSchema = z.string().min(1, 'must not be empty').max(256, 'must be at most 256 characters');

/** A caller-controlled name (a type, a predicate, a label). */
export const NameSchema = (max: number) => z.string().min(1, 'must not be empty').max(max, `must be at most ${max} characters`);

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;
const EARLIEST_MS = utcMillis(0, 1, 1, 0, 0, 0);
const LATEST_MS = utcMillis(9999, 12, 31, 23, 59, 59) + 999;

/**
 * True for an RFC 3339 timestamp with an offset: a real date and time, in years 0000-9999 once the offset
 * is applied (the service's src/domain/time.ts rule, which writes every instant back in UTC).
 */
export function isRfc3339(text: string): boolean {
  const m = RFC3339.exec(text);
  if (!m) return false;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return false;
  if (day > new Date(utcMillis(year, month + 1, 0, 0, 0, 0)).getUTCDate()) return false;
  let offsetMinutes = 0;
  if (m[8] !== undefined) {
    const [offHours, offMinutes] = [Number(m[9]), Number(m[10])];
    if (offHours > 23 || offMinutes > 59) return false;
    offsetMinutes = (m[8] === '-' ? -1 : 1) * (offHours * 60 + offMinutes);
  }
  const ms = utcMillis(year, month, day, hour, minute, second) - offsetMinutes * 60_000;
  return ms >= EARLIEST_MS && ms <= LATEST_MS;
}

/** Like Date.UTC, but years 0-99 stay years 0-99. */
function utcMillis(year: number, month: number, day: number, hour: number, minute: number, second: number): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, 0);
  return date.getTime();
}

/** RFC 3339 with a time zone offset (`Z` or `±hh:mm`), as every timestamp the API takes. */
export const TimestampSchema = z
  .string()
  .refine(isRfc3339, { error: (issue) => `must be an RFC 3339 timestamp with a time zone offset (e.g. 2026-03-01T09:30:00Z), got ${JSON.stringify(String(issue.input).slice(0, 64))}` })
  .meta({ format: 'date-time' });

/** Longest string a scalar value may hold. */
export const MAX_SCALAR_STRING = 16 * 1024;

/** A fact's value and an attribute's: string, number, boolean or null (never an object or array). */
export const ScalarSchema = z.union(
  [z.string().max(MAX_SCALAR_STRING, `must be at most ${MAX_SCALAR_STRING} characters`), z.number(), z.boolean(), z.null()],
  { error: 'must be scalar: a string, number, boolean or null (not an object or array)' },
);

export const ScalarMapSchema = z
  .record(NameSchema(128), ScalarSchema)
  .refine((map) => Object.keys(map).length <= 128, 'must have at most 128 keys');

/** Memory-route list limits (DECISIONS.md): default 100, at most 1000. */
export const LimitSchema = z.number().int('must be an integer').min(1, 'must be at least 1').max(1000, 'must be at most 1000');

export const CursorSchema = z
  .string()
  .min(1, 'must not be empty (omit it for the first page)')
  .max(2048, 'must be at most 2048 characters')
  .regex(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/, 'must be a next_cursor the service returned, unchanged');

export const SUBJECT_TYPES = ['owner', 'entity', 'relationship'] as const;
export const SubjectTypeSchema = z.enum(SUBJECT_TYPES, { error: 'must be one of owner, entity, relationship' });

/** A subject id is required for entity and relationship subjects and refused for the owner (as the REST route). */
export function checkSubject(value: { subject_type?: string | undefined; subject_id?: string | undefined }, ctx: z.core.$RefinementCtx): void {
  const needsId = value.subject_type === 'entity' || value.subject_type === 'relationship';
  if (needsId && value.subject_id === undefined) {
    ctx.addIssue({ code: 'custom', path: ['subject_id'], message: `is required when subject_type is ${value.subject_type}` });
  }
  if (!needsId && value.subject_id !== undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['subject_id'],
      message: value.subject_type === undefined ? 'requires subject_type (entity or relationship)' : 'must be omitted when subject_type is owner',
    });
  }
}

/** Text documents: at most 1 MiB of UTF-8 (DOCUMENT_MAX_BYTES of the service's default). */
export const DOCUMENT_MAX_BYTES = 1024 * 1024;
export const TagsSchema = z.array(NameSchema(256)).max(100, 'must have at most 100 items');

/** Search (DECISIONS.md, Search): q 1 to 4096 characters, k 1 to 100 (default 10). */
export const SEARCH_MODES = ['hybrid', 'semantic', 'lexical'] as const;
export const MODALITIES = ['text', 'image', 'audio'] as const;
