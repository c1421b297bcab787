import { z } from 'zod';
import { defineTool } from './define.js';
import { entityInput, relationshipInput } from './entities.js';
import { factInput } from './facts.js';
import { checkSubject, IdSchema } from './inputs.js';
import { EntityRecord, FactRecord, RelationshipRecord, type Entity, type Fact, type Relationship } from './outputs.js';
import { entityLine, factLine, relationshipLine } from './render.js';

/**
 * Most operations one remember_many call takes. The route takes 1,000 (MEMORY_BATCH_MAX of the service), but
 * a model that writes a thousand operations into one tool call spends its output on a single all-or-nothing
 * request that one slip refuses entirely; a hundred is a whole conversation's worth, and more is split.
 */
export const REMEMBER_MANY_MAX = 100;

export const BATCH_OPS = ['upsert_entity', 'upsert_relationship', 'assert_fact', 'retract_fact', 'retract_relationship'] as const;

/** One operation: `op` and the arguments of its single tool (the service's MemoryOperationSchema, mirrored). */
const Operation = z.discriminatedUnion(
  'op',
  [
    z.strictObject({ op: z.literal('upsert_entity').describe('Add or update an entity, as add_entity.'), ...entityInput }),
    z.strictObject({ op: z.literal('upsert_relationship').describe('Add or update a relationship, as add_relationship.'), ...relationshipInput }),
    z.strictObject({ op: z.literal('assert_fact').describe('Store a fact, as remember_fact.'), ...factInput }).superRefine(checkSubject),
    z.strictObject({ op: z.literal('retract_fact').describe('Retract a fact, as forget (history kept).'), fact_id: IdSchema.describe('The fact to retract.') }),
    z.strictObject({
      op: z.literal('retract_relationship').describe('Retract a relationship, as forget (history kept).'),
      relationship_id: IdSchema.describe('The relationship to retract.'),
    }),
  ],
  { error: `must be one of ${BATCH_OPS.join(', ')}` },
);

type OperationArgs = z.infer<typeof Operation>;

/** Each result with the op that produced it, so that the model need not count to match them up. */
const Result = z.discriminatedUnion('op', [
  z.object({ op: z.literal('upsert_entity'), entity: EntityRecord }),
  z.object({ op: z.literal('upsert_relationship'), relationship: RelationshipRecord }),
  z.object({ op: z.literal('assert_fact'), fact: FactRecord }),
  z.object({ op: z.literal('retract_fact'), fact: FactRecord }),
  z.object({ op: z.literal('retract_relationship'), relationship: RelationshipRecord }),
]);

type ResultItem = z.infer<typeof Result>;

export const rememberMany = defineTool({
  name: 'remember_many',
  title: 'Remember many things at once',
  description: [
    'Stores several entities, relationships and facts (and retractions) in one call, applied in order and atomically: all of them, or none.',
    'Use it instead of a series of add_entity, add_relationship, remember_fact and forget calls whenever you have more than two or three things to record together, e.g. when importing or summarising a conversation, a profile or a document;',
    'for a single fact or entity the single tools are simpler.',
    'Each item of operations is an op plus the arguments of the single tool: "upsert_entity" (as add_entity), "upsert_relationship" (as add_relationship), "assert_fact" (as remember_fact),',
    '"retract_fact" (fact_id) and "retract_relationship" (relationship_id) (as forget: soft, history kept).',
    'Later operations can refer to earlier ones by ids you choose: give an entity a memory_entity_id (e.g. "ada_lovelace") and use it as from_entity_id, to_entity_id or subject_id further down;',
    'give a relationship a relationship_id to state facts about it. Ids the service mints (ent_..., rel_..., fact_...) are only known after the call, so choose an id for anything you refer to.',
    'A memory_entity_id or relationship_id that already exists updates that record: call find_entity first to reuse existing entities rather than duplicate them.',
    'Supersession as in remember_fact: a "single" fact (the default) supersedes the active fact of the same subject and predicate, including one asserted earlier in the same call, and the old one is kept in history;',
    '"multi" values coexist; supersedes_fact_id replaces one specific active fact. observed_at defaults to now and may be in the past (never ahead).',
    'All or nothing: if any operation is refused (a bad argument, an entity that does not exist, an unknown fact_id), the error names it as operations[i] (counting from 0) and nothing of the call is stored; correct that operation and send the whole call again.',
    `At most ${REMEMBER_MANY_MAX} operations a call: the service would take more, but do not send more than ${REMEMBER_MANY_MAX}; split a larger import into several calls, each atomic on its own.`,
    'Returns the stored records in the order of operations, each with its op and its ids (fact_id, memory_entity_id, relationship_id).',
  ].join(' '),
  input: {
    operations: z
      .array(Operation)
      .min(1, 'must not be empty')
      .max(REMEMBER_MANY_MAX, `must have at most ${REMEMBER_MANY_MAX} operations: split them into several calls`)
      .describe(`The writes, 1 to ${REMEMBER_MANY_MAX}, applied in order, all or nothing.`),
  },
  output: { results: z.array(Result), count: z.number().int() },
  // Not read-only, and destructive: a call may retract facts and relationships, as forget does. Retraction is
  // soft (history kept, as_of still sees it), but forget is marked destructive for it, and hints are per tool,
  // not per call: were this one marked additive, a host that asks the user before destructive tools would let
  // any retraction through by wrapping it in a batch. Not idempotent: a repeated call asserts its facts again,
  // as new versions, and mints new ids for the entities and edges that named none.
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
  async run(args, owner) {
    const { results } = await owner.batch(args.operations);
    const items = results.map((record, i) => resultItem(args.operations[i] as OperationArgs, record));
    const lines = items.map((item, i) => `- operations[${i}]: ${resultLine(item)}`);
    const text = `Stored ${items.length} operation${items.length === 1 ? '' : 's'}, all in one transaction:\n${lines.join('\n')}`;
    return { structured: { results: items, count: items.length }, text };
  },
});

/** The record of operation `op`, under the name its single tool gives it. */
function resultItem(operation: OperationArgs, record: unknown): ResultItem {
  switch (operation.op) {
    case 'upsert_entity':
      return { op: operation.op, entity: record as Entity };
    case 'upsert_relationship':
    case 'retract_relationship':
      return { op: operation.op, relationship: record as Relationship };
    case 'assert_fact':
    case 'retract_fact':
      return { op: operation.op, fact: record as Fact };
  }
}

function resultLine(item: ResultItem): string {
  switch (item.op) {
    case 'upsert_entity':
      return `entity ${entityLine(item.entity)}`;
    case 'upsert_relationship':
      return `relationship ${relationshipLine(item.relationship)}`;
    case 'assert_fact': {
      const replaced = item.fact.supersedes_fact_id ? `, superseding ${item.fact.supersedes_fact_id} (kept in history)` : '';
      return `fact ${factLine(item.fact)}${replaced}`;
    }
    case 'retract_fact':
      return `retracted fact ${factLine(item.fact)}`;
    case 'retract_relationship':
      return `retracted relationship ${relationshipLine(item.relationship)}`;
  }
}
