import { z } from 'zod';
import { FIELD_TYPES } from '../../query/service.js';
import { ERASURE_STATES } from '../../store/owner-holds.js';
import { ERROR_CODES } from '../../errors.js';
import { DocumentSchema, EntitySchema, FactSchema, InstantSchema, MediaSchema, RelationshipSchema, SearchHitSchema, SearchModeSchema } from './records.js';

/** The envelopes of the routes' answers (DECISIONS.md), for the OpenAPI document; see records.ts. */

export const ErrorBodySchema = z
  .object({
    error: z.string().meta({ description: 'What went wrong, naming the field and the rule.' }),
    code: z.enum(ERROR_CODES),
    request_id: z.string().meta({ description: 'Also the X-Request-Id response header.' }),
  })
  .meta({ id: 'Error' });

const nextCursor = z.string().nullable().meta({ description: 'Pass back as `cursor` (with the same filters) for the next page; null on the last page.' });
const count = z.number().int().meta({ description: 'How many records this page holds.' });

export const EntityListSchema = z.object({ entities: z.array(EntitySchema), count, next_cursor: nextCursor }).meta({ id: 'EntityList' });
export const RelationshipListSchema = z.object({ relationships: z.array(RelationshipSchema), count, next_cursor: nextCursor }).meta({ id: 'RelationshipList' });
export const FactListSchema = z.object({ facts: z.array(FactSchema), count, next_cursor: nextCursor }).meta({ id: 'FactList' });

export const MemoryGraphSchema = z
  .object({
    nodes: z.array(EntitySchema).meta({ description: 'The start node first, then the others by distance from it; empty when the start node did not exist yet at `as_of`.' }),
    edges: z.array(RelationshipSchema).meta({ description: 'Every edge (of `relationship_type`, active then) between two returned nodes, whichever way it points.' }),
    facts: z.array(FactSchema).optional().meta({ description: 'With `include_facts=true`: the facts active then about the returned nodes, then edges; each subject\'s newest observed first.' }),
  })
  .meta({ id: 'MemoryGraph' });

export const MemoryBatchResultSchema = z
  .object({
    results: z
      .array(z.union([EntitySchema, RelationshipSchema, FactSchema]))
      .meta({ description: 'Each operation\'s record as stored, in operation order: an entity, a relationship or a fact.' }),
    count: z.number().int().meta({ description: 'How many operations were applied: all of them.' }),
  })
  .meta({ id: 'MemoryBatchResult' });

export const ForgetReportSchema = z
  .object({ erased: z.object({ entities: z.number().int(), relationships: z.number().int(), facts: z.number().int() }) })
  .meta({ id: 'ForgetReport' });

export const ConsolidationReportSchema = z
  .object({ active_facts_before: z.number().int(), active_facts_after: z.number().int(), retracted: z.number().int() })
  .meta({ id: 'ConsolidationReport' });

export const DocumentListSchema = z.object({ documents: z.array(DocumentSchema), count }).meta({ id: 'DocumentList' });
export { DocumentSchema, EntitySchema, FactSchema, MediaSchema, RelationshipSchema };

const searchMode = {
  search_mode: SearchModeSchema,
  search_mode_reason: z.string().optional().meta({ description: 'Why the mode that answered is not the one asked.' }),
};
export const SearchResultsSchema = z.object({ results: z.array(SearchHitSchema), count, ...searchMode }).meta({ id: 'SearchResults' });
export const EmbedSearchResultsSchema = z.object({ results: z.array(SearchHitSchema), count }).meta({ id: 'EmbedSearchResults' });
export const BatchSearchResultsSchema = z
  .object({
    results: z.array(z.array(SearchHitSchema)),
    search_modes: z.array(SearchModeSchema),
    search_mode_reasons: z.array(z.string().nullable()),
  })
  .meta({ id: 'BatchSearchResults' });

const FieldSourceWireSchema = z.union([z.object({ metadata: z.string() }), z.object({ regex: z.string() })]);
export const FieldSchema = z
  .object({
    name: z.string(),
    type: z.enum(FIELD_TYPES),
    source: FieldSourceWireSchema,
    partition_scope: z.string().nullable(),
    coverage: z.number().int(),
    mismatch_count: z.number().int(),
    backfill: z.string().meta({ description: '`pending`, `running:<done>/<total>`, `complete` or `failed:<reason>`.' }),
  })
  .meta({ id: 'Field' });
export const FieldListSchema = z.object({ fields: z.array(FieldSchema) }).meta({ id: 'FieldList' });

const FieldValueSchema = z.union([z.string(), z.number(), z.boolean(), z.array(z.string()), z.null()]);
export const QueryResultSchema = z
  .union([
    z.object({ documents: z.array(DocumentSchema), total: z.number().int(), has_more: z.boolean() }).meta({ id: 'QueryDocuments', description: 'Mode A: a page of documents.' }),
    z
      .object({
        groups: z.array(z.object({ keys: z.record(z.string(), FieldValueSchema), aggregates: z.record(z.string(), FieldValueSchema) }).meta({ id: 'QueryGroup' })),
        total_groups: z.number().int(),
        scanned: z.number().int(),
      })
      .meta({ id: 'QueryGroups', description: 'Mode B: groups with their aggregates.' }),
  ])
  .meta({ id: 'QueryResult' });

export const ErasureAcceptedSchema = z.object({ receipt_id: z.string(), state: z.enum(ERASURE_STATES) }).meta({ id: 'ErasureAccepted' });
export const ErasureReceiptSchema = z
  .object({
    receipt_id: z.string(),
    state: z.enum(ERASURE_STATES),
    counts: z.record(z.string(), z.number().int()),
    started_at: InstantSchema,
    finished_at: InstantSchema.nullable(),
  })
  .meta({ id: 'ErasureReceipt' });

export const ImportReportSchema = z
  .object({
    imported: z.object({ entities: z.number().int(), relationships: z.number().int(), facts: z.number().int(), documents: z.number().int() }),
    reembedded_documents: z.number().int(),
  })
  .meta({ id: 'ImportReport' });

export const StatusSchema = z
  .object({
    status: z.enum(['ok', 'degraded']),
    store: z.object({ ready: z.boolean(), detail: z.string().optional() }),
    temporal: z.object({ ready: z.boolean() }).catchall(z.unknown()),
    embedder: z.object({ id: z.string(), kind: z.enum(['hash', 'model', 'provider']), fallback: z.string().optional() }).optional(),
  })
  .meta({ id: 'Status' });

export const IndexSchema = z.object({ service: z.string(), api: z.string(), status: z.string(), docs: z.string() }).meta({ id: 'Index' });
