import { z } from 'zod';
import { CARDINALITIES, SUBJECT_TYPES } from '../../domain/facts.js';
import { GRAPH_DIRECTIONS, GRAPH_MAX_DEPTH } from '../../domain/graph-walk.js';
import {
  documentedAs,
  IdSchema,
  NameSchema,
  ownerQueryShape,
  PartitionSchema,
  QueryBoolSchema,
  QueryLimitSchema,
  ScalarMapSchema,
  ScalarSchema,
  TimestampSchema,
} from './common.js';
import { CURSOR_MAX_LENGTH } from '../list-cursors.js';

export const OwnerQuerySchema = z.strictObject(ownerQueryShape);

/** `POST /v1/memory/consolidate` takes no body; an empty JSON object is tolerated (clients that always send one). */
export const ConsolidateBodySchema = z.strictObject({}).optional();

/** An erasure receipt is tenant-wide; a multi-tenant key names its partition. */
export const ReceiptQuerySchema = z.strictObject({ partition: PartitionSchema.optional() });

export const entityBodyShape = {
  entity_type: NameSchema(128),
  memory_entity_id: IdSchema.optional(),
  display_name: NameSchema(1024).optional(),
  aliases: z.array(NameSchema(256)).max(100, 'must have at most 100 items').optional(),
  attributes: ScalarMapSchema.optional(),
};

export const EntityBodySchema = z.strictObject(entityBodyShape);

/** `cursor`: a list's `next_cursor`, passed back unchanged (src/http/list-cursors.ts checks what it says). */
export const CursorSchema = z
  .string()
  .min(1, 'must not be empty (omit it for the first page)')
  .max(CURSOR_MAX_LENGTH, `must be at most ${CURSOR_MAX_LENGTH} characters`)
  .regex(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/, 'must be a next_cursor the service returned, unchanged')
  .meta({ description: 'The `next_cursor` of the page before, unchanged, with the same filters (only `limit` may change).' });

export const EntityListQuerySchema = z.strictObject({
  ...ownerQueryShape,
  entity_type: NameSchema(128).optional(),
  /** Whole display name or alias, compared case-insensitively (src/domain/names.ts). */
  name: NameSchema(1024)
    .meta({ description: 'A whole display name or alias, compared case-insensitively (Unicode full case folding with NFKC).' })
    .optional(),
  limit: QueryLimitSchema.optional(),
  cursor: CursorSchema.optional(),
});

export const relationshipBodyShape = {
  from_entity_id: IdSchema,
  to_entity_id: IdSchema,
  relationship_type: NameSchema(128),
  relationship_id: IdSchema.optional(),
  attributes: ScalarMapSchema.optional(),
  valid_from: TimestampSchema.optional(),
};

export const RelationshipBodySchema = z.strictObject(relationshipBodyShape);

const temporalQueryShape = {
  include_inactive: QueryBoolSchema.optional(),
  as_of: TimestampSchema.optional(),
  limit: QueryLimitSchema.optional(),
  cursor: CursorSchema.optional(),
};

export const RelationshipListQuerySchema = z.strictObject({
  ...ownerQueryShape,
  ...temporalQueryShape,
  from_entity_id: IdSchema.optional(),
  to_entity_id: IdSchema.optional(),
  relationship_type: NameSchema(128).optional(),
});

const SubjectTypeSchema = z.enum(SUBJECT_TYPES, { error: 'must be one of owner, entity, relationship' });

/** A subject id is required for entity and relationship subjects and refused for the owner. */
export function checkSubject(
  value: { subject_type?: string | undefined; subject_id?: string | undefined },
  ctx: z.core.$RefinementCtx,
): void {
  const needsId = value.subject_type === 'entity' || value.subject_type === 'relationship';
  if (needsId && value.subject_id === undefined) {
    ctx.addIssue({ code: 'custom', path: ['subject_id'], message: `is required when subject_type is ${value.subject_type}` });
  }
  if (!needsId && value.subject_id !== undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['subject_id'],
      message: value.subject_type === undefined ? 'requires subject_type' : 'must be omitted when subject_type is owner',
    });
  }
}

export const factBodyShape = {
  predicate: NameSchema(256),
  value: ScalarSchema,
  subject_type: SubjectTypeSchema.default('owner'),
  subject_id: IdSchema.optional(),
  cardinality: z.enum(CARDINALITIES, { error: 'must be single or multi' }).default('single'),
  valid_from: TimestampSchema.optional(),
  observed_at: TimestampSchema.optional(),
  supersedes_fact_id: IdSchema.optional(),
};

export const FactBodySchema = z.strictObject(factBodyShape).superRefine(checkSubject);

export const FactListQuerySchema = z
  .strictObject({
    ...ownerQueryShape,
    ...temporalQueryShape,
    subject_type: SubjectTypeSchema.optional(),
    subject_id: IdSchema.optional(),
    predicate: NameSchema(256).optional(),
    history: QueryBoolSchema.optional(),
  })
  .superRefine((q, ctx) => {
    checkSubject(q, ctx);
    if (q.history && (q.subject_type === undefined || q.predicate === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['history'], message: 'requires subject_type and predicate' });
    }
    if (q.history && q.as_of !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['history'], message: 'cannot be combined with as_of' });
    }
  });

/** `depth` of the graph route: hops from the start node. */
const GraphDepthSchema = documentedAs(
  z
    .enum(['1', '2', '3'], { error: `must be an integer from 1 to ${GRAPH_MAX_DEPTH}` })
    .transform(Number),
  { type: 'integer', minimum: 1, maximum: GRAPH_MAX_DEPTH, default: 1 },
);

export const GraphQuerySchema = z.strictObject({
  ...ownerQueryShape,
  memory_entity_id: IdSchema.meta({ description: 'The start node.' }),
  depth: GraphDepthSchema.optional(),
  direction: z
    .enum(GRAPH_DIRECTIONS, { error: 'must be one of both, outgoing, incoming' })
    .meta({ description: 'Which way an edge is followed from the node the walk stands on (`both` by default). The edges returned are every edge between two returned nodes, whichever way it points.' })
    .optional(),
  relationship_type: NameSchema(128).meta({ description: 'Only edges of this type are followed and returned.' }).optional(),
  /** The graph as the service knew it then: edges active then, nodes created by then. */
  as_of: TimestampSchema.optional(),
  /** Also the facts, active then (or now), about the returned nodes and edges. */
  include_facts: QueryBoolSchema.optional(),
});
