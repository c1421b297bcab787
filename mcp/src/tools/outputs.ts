/**
 * The records tools return as structured content, as the service answers them (src/http/schemas/records.ts).
 * Loose objects: a field the service adds later passes through instead of failing a client's validation.
 */
import { z } from 'zod';

const Instant = z.string().meta({ description: 'RFC 3339, UTC' });
const Scalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);
const ScalarMap = z.record(z.string(), Scalar);

export const FactRecord = z.looseObject({
  fact_id: z.string(),
  subject_type: z.enum(['owner', 'entity', 'relationship']),
  subject_id: z.string().nullable(),
  predicate: z.string(),
  value: Scalar,
  cardinality: z.enum(['single', 'multi']),
  valid_from: Instant.nullable().meta({ description: 'When it became true in the world, as the caller said' }),
  observed_at: Instant.meta({ description: 'When the memory learned it' }),
  invalid_from: Instant.nullable().meta({ description: 'When it stopped being known (superseded or retracted); null while active' }),
  supersedes_fact_id: z.string().nullable(),
});

export const EntityRecord = z.looseObject({
  memory_entity_id: z.string(),
  entity_type: z.string(),
  display_name: z.string().nullable(),
  aliases: z.array(z.string()),
  attributes: ScalarMap,
  created_at: Instant,
});

export const RelationshipRecord = z.looseObject({
  relationship_id: z.string(),
  from_entity_id: z.string(),
  to_entity_id: z.string(),
  relationship_type: z.string(),
  attributes: ScalarMap,
  valid_from: Instant.nullable(),
  observed_at: Instant,
  invalid_from: Instant.nullable().meta({ description: 'Set once the edge is retracted; null while active' }),
});

export const SearchHitRecord = z.looseObject({
  doc_id: z.string(),
  score: z.number().meta({ description: '0-100, higher is better' }),
  distance: z.number().nullable(),
  passage: z.string(),
  modality: z.enum(['text', 'image', 'audio']),
  title: z.string().nullable(),
  created_at: Instant,
});

export const DocumentRecord = z.looseObject({
  doc_id: z.string(),
  title: z.string().nullable(),
  content_type: z.string(),
  created_at: Instant,
});

export type Fact = z.infer<typeof FactRecord>;
export type Entity = z.infer<typeof EntityRecord>;
export type Relationship = z.infer<typeof RelationshipRecord>;
export type SearchHit = z.infer<typeof SearchHitRecord>;

/** `next_cursor` of a page: pass it back as `cursor` (same filters) for the next one; null on the last page. */
export const NextCursor = z.string().nullable();
