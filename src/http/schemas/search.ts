import { z } from 'zod';
import { MODALITIES } from '../../domain/documents.js';
import { SEARCH_MODES, type SearchMode } from '../../search/modes.js';
import { documentedAs, ownerQueryShape, QueryBoolSchema } from './common.js';

export const SEARCH_K_DEFAULT = 10;
export const SEARCH_K_MAX = 100;
export const BATCH_MAX = 32;

const KSchema = z.number().int('must be an integer').min(1, 'must be at least 1').max(SEARCH_K_MAX, `must be at most ${SEARCH_K_MAX}`);
const MaxDistanceSchema = z.number().min(0, 'must be at least 0').max(2, 'must be at most 2');
const ModalitySchema = z.enum(MODALITIES, { error: `must be one of ${MODALITIES.join(', ')}` });
const ModeSchema = z.enum(SEARCH_MODES, { error: `must be one of ${SEARCH_MODES.join(', ')}` });
const QuerySchema = z.string().trim().min(1, 'must not be empty').max(4096, 'must be at most 4096 characters');

/** A number given in the query string. */
const queryNumber = (inner: z.ZodNumber) =>
  documentedAs(
    z
      .string()
      .regex(/^-?\d+(\.\d+)?$/, 'must be a number')
      .transform(Number)
      .pipe(inner),
    z.toJSONSchema(inner, { target: 'draft-2020-12' }),
  );

export const SearchQuerySchema = z.strictObject({
  ...ownerQueryShape,
  q: QuerySchema,
  k: queryNumber(KSchema).optional(),
  max_distance: queryNumber(MaxDistanceSchema).optional(),
  include_content: QueryBoolSchema.optional(),
  modality: ModalitySchema.optional(),
  mode: ModeSchema.optional(),
});

export const OwnerSearchQuerySchema = z.strictObject(ownerQueryShape);

const searchOptionsShape = {
  k: KSchema.optional(),
  max_distance: MaxDistanceSchema.optional(),
  include_content: z.boolean().optional(),
  modality: ModalitySchema.optional(),
};

export const EmbedSearchBodySchema = z.strictObject({
  vector: z.array(z.number()).min(1, 'must not be empty').max(8192, 'must have at most 8192 numbers'),
  ...searchOptionsShape,
});

export const BatchSearchBodySchema = z.strictObject({
  queries: z
    .array(z.strictObject({ q: QuerySchema, mode: ModeSchema.optional(), ...searchOptionsShape }))
    .min(1, 'must not be empty')
    .max(BATCH_MAX, `must have at most ${BATCH_MAX} queries`),
});

export interface SearchOptions {
  k?: number | undefined;
  max_distance?: number | undefined;
  include_content?: boolean | undefined;
  modality?: (typeof MODALITIES)[number] | undefined;
  mode?: SearchMode | undefined;
}
