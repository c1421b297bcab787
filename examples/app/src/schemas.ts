import { z } from 'zod';

/**
 * The app's inputs. Ids follow Engram's rule (DECISIONS.md, Identifiers), so that a malformed one is
 * refused here with a message of the app's, before any request to the service.
 */
export const IdSchema = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/, 'must be 1 to 128 letters, digits, ".", "_", ":" or "-", starting with a letter or digit');

/** An owner (`entity_id`): 1 to 256 characters, as Engram's contract says. */
export const OwnerIdSchema = z.string().trim().min(1, 'must not be empty').max(256, 'must be at most 256 characters');

/** An RFC 3339 instant with a zone offset (`Z` or `±hh:mm`), as Engram's `as_of` requires. */
export const InstantSchema = z.iso.datetime({ offset: true, message: 'must be an RFC 3339 instant with a time zone, e.g. 2026-01-31T12:00:00Z' });

const queryBool = z.enum(['true', 'false'], { error: 'must be true or false' }).transform((v) => v === 'true');
const queryInt = (min: number, max: number) => z.coerce.number({ error: 'must be a whole number' }).int('must be a whole number').min(min, `must be at least ${min}`).max(max, `must be at most ${max}`);

export const DocumentListQuerySchema = z.strictObject({
  include_deleted: queryBool.default(false),
  limit: queryInt(1, 100).default(20),
  offset: queryInt(0, 1_000_000).default(0),
});

const scalar = z.union([z.string(), z.number(), z.boolean(), z.null()], { error: 'must be a string, number, boolean or null' });

export const NewDocumentSchema = z.strictObject({
  title: z.string().trim().min(1, 'must not be empty').max(1024, 'must be at most 1024 characters').optional(),
  content: z.string().refine((s) => s.trim().length > 0, 'must not be empty').refine((s) => Buffer.byteLength(s) <= 1024 * 1024, 'must be at most 1 MiB'),
  content_type: z.enum(['text/plain', 'text/markdown'], { error: 'must be text/plain or text/markdown' }).optional(),
  tags: z.array(z.string().trim().min(1, 'must not be empty').max(256, 'must be at most 256 characters')).max(100, 'must have at most 100 tags').optional(),
  metadata: z.record(z.string().min(1).max(128), scalar).optional(),
  source: z.string().min(1).max(1024).optional(),
});

export const SearchQuerySchema = z.strictObject({
  q: z.string().trim().min(1, 'must not be empty').max(1000, 'must be at most 1000 characters'),
  k: queryInt(1, 50).default(5),
});

export const ChatBodySchema = z.strictObject({
  question: z.string().trim().min(1, 'must not be empty').max(2000, 'must be at most 2000 characters'),
  k: z.number().int('must be a whole number').min(1, 'must be at least 1').max(20, 'must be at most 20').default(5),
});

export const DocumentPathSchema = z.object({ id: IdSchema });
export const OwnerPathSchema = z.object({ owner: OwnerIdSchema });

export const GraphQuerySchema = z.strictObject({
  node: IdSchema,
  depth: queryInt(1, 3).default(1),
  as_of: InstantSchema.optional(),
});

/** `as_of`: what was known at that instant; `history=true`: every record, active and inactive; neither: what is known now. */
export const MemoryListQuerySchema = z
  .strictObject({ as_of: InstantSchema.optional(), history: queryBool.default(false) })
  .refine((q) => !(q.as_of && q.history), { message: 'as_of and history=true exclude each other', path: ['history'] });

/** A route that takes no query parameters refuses unknown ones, so that a typo does not pass unnoticed. */
export const NoQuerySchema = z.strictObject({});
