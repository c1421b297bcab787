import { z } from 'zod';
import { MODALITIES } from '../../domain/documents.js';
import { CARDINALITIES, SUBJECT_TYPES } from '../../domain/facts.js';
import { IdSchema, NameSchema, OwnerIdSchema, PartitionSchema, ScalarMapSchema, ScalarSchema, TimestampSchema } from './common.js';
import { TagsSchema } from './documents.js';

/**
 * The lines `POST /v1/memory/import` reads: exactly what `GET /v1/memory/export` writes
 * (src/http/serialize-export.ts). Instants become epoch milliseconds; the owner fields (`entity_id`,
 * `partition`) are checked for shape only, since the import's scope replaces them.
 */
const owner = { entity_id: OwnerIdSchema, partition: PartitionSchema.nullable() };
const NullableTimestamp = TimestampSchema.nullable();
const NullableText = (max: number) => z.string().max(max, `must be at most ${max} characters`).nullable();

const EntityRecordSchema = z.strictObject({
  memory_entity_id: IdSchema,
  ...owner,
  entity_type: NameSchema(128),
  display_name: NameSchema(1024).nullable(),
  aliases: z.array(NameSchema(256)).max(100, 'must have at most 100 items'),
  attributes: ScalarMapSchema,
  created_at: TimestampSchema,
  updated_at: TimestampSchema,
});

const RelationshipRecordSchema = z.strictObject({
  relationship_id: IdSchema,
  ...owner,
  from_entity_id: IdSchema,
  to_entity_id: IdSchema,
  relationship_type: NameSchema(128),
  attributes: ScalarMapSchema,
  valid_from: NullableTimestamp,
  observed_at: TimestampSchema,
  invalid_from: NullableTimestamp,
  created_at: TimestampSchema,
  updated_at: TimestampSchema,
});

const FactRecordSchema = z
  .strictObject({
    fact_id: IdSchema,
    ...owner,
    subject_type: z.enum(SUBJECT_TYPES, { error: 'must be one of owner, entity, relationship' }),
    subject_id: IdSchema.nullable(),
    predicate: NameSchema(256),
    value: ScalarSchema,
    cardinality: z.enum(CARDINALITIES, { error: 'must be single or multi' }),
    valid_from: NullableTimestamp,
    observed_at: TimestampSchema,
    invalid_from: NullableTimestamp,
    supersedes_fact_id: IdSchema.nullable(),
    created_at: TimestampSchema,
    updated_at: TimestampSchema,
  })
  .superRefine((f, ctx) => {
    if ((f.subject_type === 'owner') !== (f.subject_id === null)) {
      ctx.addIssue({ code: 'custom', path: ['subject_id'], message: f.subject_type === 'owner' ? 'must be null when subject_type is owner' : `is required when subject_type is ${f.subject_type}` });
    }
  });

const PassageSchema = z.strictObject({
  text: z.string(),
  embedder: z.string().min(1, 'must not be empty').max(256, 'must be at most 256 characters'),
  vector_base64: z.string(),
});

const DocumentRecordSchema = z.strictObject({
  doc_id: IdSchema,
  cid: z.string().regex(/^mgc1-[0-9a-f]{64}$/, 'must be mgc1- and 64 lowercase hex digits'),
  ...owner,
  modality: z.enum(MODALITIES, { error: `must be one of ${MODALITIES.join(', ')}` }),
  content_type: NameSchema(256),
  title: NameSchema(1024).nullable(),
  content: z.string().nullable(),
  derived_text: z.string().nullable(),
  derived_by: NullableText(256),
  filename: NullableText(1024),
  metadata: ScalarMapSchema,
  tags: TagsSchema,
  source: NameSchema(1024).nullable(),
  readers: z.array(NameSchema(256)).min(1, 'must name at least one principal (or be null)').max(100, 'must have at most 100 items').nullable(),
  created_at: TimestampSchema,
  updated_at: TimestampSchema,
  deleted_at: NullableTimestamp,
  data_base64: z.string().nullable(),
  passages: z.array(PassageSchema),
});

/** One line of an export. */
export const ImportLineSchema = z.discriminatedUnion(
  'type',
  [
    z.strictObject({ type: z.literal('entity'), record: EntityRecordSchema }),
    z.strictObject({ type: z.literal('relationship'), record: RelationshipRecordSchema }),
    z.strictObject({ type: z.literal('fact'), record: FactRecordSchema }),
    z.strictObject({ type: z.literal('document'), record: DocumentRecordSchema }),
  ],
  { error: 'must be one of entity, relationship, fact, document' },
).meta({ id: 'ExportLine', description: 'One line of an export: a record of the owner, with its type.' });

export type ImportLine = z.infer<typeof ImportLineSchema>;
export type ImportedDocumentRecord = z.infer<typeof DocumentRecordSchema>;
