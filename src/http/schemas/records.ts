import { z } from 'zod';
import { MODALITIES } from '../../domain/documents.js';
import { CARDINALITIES, SUBJECT_TYPES } from '../../domain/facts.js';
import { SEARCH_MODES } from '../../search/modes.js';

/**
 * The records the routes answer with, as they are on the wire. They describe responses in the OpenAPI
 * document (src/http/openapi/) and type the serializers (serialize*.ts), so a field added to one and not
 * the other fails the type check. Components carry an `id`: the SDKs' generated models take these names.
 */

export const InstantSchema = z.string().meta({ format: 'date-time', description: 'RFC 3339, UTC, milliseconds' });
const NullableInstant = InstantSchema.nullable();

export const ScalarWireSchema = z
  .union([z.string(), z.number(), z.boolean(), z.null()])
  .meta({ id: 'Scalar', description: 'A string, number, boolean or null.' });
export const ScalarMapWireSchema = z.record(z.string(), ScalarWireSchema).meta({ id: 'ScalarMap' });

const owner = {
  entity_id: z.string().meta({ description: 'The owner (user, customer, agent session) the record belongs to.' }),
  partition: z.string().nullable(),
};

export const EntitySchema = z
  .object({
    memory_entity_id: z.string(),
    ...owner,
    entity_type: z.string(),
    display_name: z.string().nullable(),
    aliases: z.array(z.string()),
    attributes: ScalarMapWireSchema,
    created_at: InstantSchema,
    updated_at: InstantSchema,
  })
  .meta({ id: 'Entity', description: 'A node of the owner\'s graph.' });

export const RelationshipSchema = z
  .object({
    relationship_id: z.string(),
    ...owner,
    from_entity_id: z.string(),
    to_entity_id: z.string(),
    relationship_type: z.string(),
    attributes: ScalarMapWireSchema,
    valid_from: NullableInstant,
    observed_at: InstantSchema,
    invalid_from: NullableInstant.meta({ description: 'Set once the edge is retracted; null while active.' }),
    created_at: InstantSchema,
    updated_at: InstantSchema,
  })
  .meta({ id: 'Relationship', description: 'A directed, typed edge between two entities.' });

export const FactSchema = z
  .object({
    fact_id: z.string(),
    ...owner,
    subject_type: z.enum(SUBJECT_TYPES),
    subject_id: z.string().nullable(),
    predicate: z.string(),
    value: ScalarWireSchema,
    cardinality: z.enum(CARDINALITIES),
    valid_from: NullableInstant,
    observed_at: InstantSchema,
    invalid_from: NullableInstant.meta({ description: 'When the fact stopped being known (superseded or retracted); null while active.' }),
    supersedes_fact_id: z.string().nullable(),
    created_at: InstantSchema,
    updated_at: InstantSchema,
  })
  .meta({ id: 'Fact', description: 'A temporal fact; its history is kept.' });

const documentCommon = {
  doc_id: z.string(),
  cid: z.string().meta({ description: '`mgc1-` and the SHA-256 of the original bytes.' }),
  ...owner,
  modality: z.enum(MODALITIES),
  content_type: z.string(),
  metadata: ScalarMapWireSchema,
  tags: z.array(z.string()),
  source: z.string().nullable(),
  readers: z.array(z.string()).nullable(),
  created_at: InstantSchema,
};

export const DocumentSchema = z
  .object({
    ...documentCommon,
    title: z.string().nullable(),
    content: z.string().nullable().optional().meta({ description: 'Text documents only.' }),
    derived_text: z.string().nullable().optional().meta({ description: 'Media only: the caption or transcript.' }),
    derived_by: z.string().nullable().optional(),
    filename: z.string().nullable().optional(),
    fields: z.record(z.string(), z.unknown()).meta({ description: 'Declared field values.' }),
    updated_at: InstantSchema,
    deleted_at: NullableInstant,
  })
  .meta({ id: 'Document', description: 'A stored document or media record; never its bytes.' });

export const MediaSchema = z
  .object({
    ...documentCommon,
    derived_text: z.string().nullable(),
    derived_by: z.string().nullable(),
    filename: z.string().nullable(),
  })
  .meta({ id: 'Media', description: 'The media record answered by an upload.' });

export const SearchHitSchema = z
  .object({
    doc_id: z.string(),
    score: z.number().meta({ description: '0-100, higher is better.' }),
    distance: z.number().nullable().meta({ description: 'Cosine distance between the query and the best passage.' }),
    passage: z.string(),
    modality: z.enum(MODALITIES),
    content_type: z.string(),
    title: z.string().nullable(),
    metadata: ScalarMapWireSchema,
    created_at: InstantSchema,
    content: z.string().nullable().optional(),
  })
  .meta({ id: 'SearchHit' });

export const SearchModeSchema = z.enum(SEARCH_MODES).meta({ id: 'SearchMode' });
