import { z } from 'zod';
import { ADDITIVE, READ_ONLY, defineTool } from './define.js';
import { checkSubject, CursorSchema, IdSchema, LimitSchema, NameSchema, ScalarSchema, SubjectTypeSchema, TimestampSchema } from './inputs.js';
import { FactRecord, NextCursor } from './outputs.js';
import { factLine, listing, subjectOf } from './render.js';

const subject = {
  subject_type: SubjectTypeSchema.optional().describe(
    'What the fact is about: "owner" (the user or agent this memory belongs to; the default), "entity" (a node added with add_entity) or "relationship" (an edge added with add_relationship).',
  ),
  subject_id: IdSchema.optional().describe('The memory_entity_id or relationship_id of the subject; required for entity and relationship subjects, omitted for the owner.'),
};

/** remember_fact's arguments, which remember_many's assert_fact operations take too (with checkSubject). */
export const factInput = {
  predicate: NameSchema(256).describe('What the fact says, in snake_case (e.g. "favorite_color", "employer", "allergy"). Reuse existing predicates: recall_facts lists them.'),
  value: ScalarSchema.describe('The value: a string, number, boolean or null. Never an object or array: store several facts instead.'),
  ...subject,
  cardinality: z.enum(['single', 'multi'], { error: 'must be single or multi' }).optional().describe('"single" (default): one active value, a new one supersedes it. "multi": several active values coexist.'),
  supersedes_fact_id: IdSchema.optional().describe('The fact_id of an active fact this one replaces (kept in history). Must be active, in this memory.'),
  observed_at: TimestampSchema.optional().describe('When the memory learned this, RFC 3339 with offset (e.g. 2026-03-01T09:30:00Z). Default: now.'),
  valid_from: TimestampSchema.optional().describe('When this became true in the world, if known (RFC 3339 with offset).'),
};

export const rememberFact = defineTool({
  name: 'remember_fact',
  title: 'Remember a fact',
  description: [
    'Stores one fact, `predicate = value`, about the owner (default), an entity or a relationship, e.g. predicate "favorite_color", value "blue".',
    'Use it whenever you learn something durable worth recalling later (a preference, a status, a plan, an attribute).',
    'Supersession: with cardinality "single" (the default) a new fact replaces the active fact of the same subject and predicate; the old one is kept in history (its invalid_from set to the new one\'s observed_at), never lost.',
    'Use cardinality "multi" for predicates that hold several values at once (e.g. "speaks_language"). Pass supersedes_fact_id to replace one specific active fact (e.g. one value of a multi predicate).',
    'Time: observed_at is when the memory learned it (default: now; it may be in the past, e.g. "they told me yesterday", but at most a few minutes ahead of the service clock).',
    'A fact observed earlier than the active one does not displace it: it is stored as history. valid_from is when it became true in the world, if known; it is stored but does not change as_of answers.',
    'Returns the stored fact with its fact_id and, if it replaced one, supersedes_fact_id.',
  ].join(' '),
  input: factInput,
  refine: checkSubject,
  output: { fact: FactRecord },
  annotations: ADDITIVE,
  async run(args, owner) {
    const fact = await owner.facts.assert(args);
    const replaced = fact.supersedes_fact_id ? `, superseding ${fact.supersedes_fact_id} (kept in history)` : '';
    const history = fact.invalid_from !== null ? ' It was stored as history only: a fact observed later is the active one.' : '';
    return { structured: { fact }, text: `Remembered ${factLine(fact)}${replaced}.${history}` };
  },
});

export const recallFacts = defineTool({
  name: 'recall_facts',
  title: 'Recall facts',
  description: [
    'Reads facts from memory. Three ways:',
    '(1) by default, the facts active now (filter by predicate and/or subject; with no filter, every active fact of every subject);',
    '(2) with as_of, the facts as the memory knew them at that instant (transaction time: facts observed by then and not yet superseded or retracted then), to answer "what did we believe last Tuesday?";',
    '(3) with history: true and a predicate, the whole chain of values of that subject and predicate, oldest first, active and superseded, each with observed_at and invalid_from, to answer "how did this change over time?".',
    'include_inactive adds superseded and retracted facts to (1). Returns facts newest observed first (history: oldest first), each with its fact_id, value, observed_at and invalid_from (null while active);',
    'next_cursor is set when more facts exist: pass it back as cursor with the same filters.',
  ].join(' '),
  input: {
    predicate: NameSchema(256).optional().describe('Only facts with this predicate (required with history).'),
    ...subject,
    as_of: TimestampSchema.optional().describe('An RFC 3339 instant with offset: answer as the memory stood then. Not with history.'),
    history: z.boolean().optional().describe('true: the full assertion chain of one subject (default the owner) and predicate, oldest first.'),
    include_inactive: z.boolean().optional().describe('true: include superseded and retracted facts.'),
    limit: LimitSchema.optional().describe('At most this many facts (1-1000, default 100).'),
    cursor: CursorSchema.optional().describe('The next_cursor of the previous call, to read the next page.'),
  },
  refine(args, ctx) {
    checkSubject(args, ctx);
    if (args.history && args.predicate === undefined) ctx.addIssue({ code: 'custom', path: ['history'], message: 'requires predicate' });
    if (args.history && args.as_of !== undefined) ctx.addIssue({ code: 'custom', path: ['history'], message: 'cannot be combined with as_of' });
  },
  output: { facts: z.array(FactRecord), count: z.number().int(), next_cursor: NextCursor },
  annotations: READ_ONLY,
  async run(args, owner) {
    const query = args.history ? { ...args, subject_type: args.subject_type ?? 'owner' } : args;
    const page = await owner.facts.list(query);
    const what = args.history
      ? `History of ${args.predicate} about ${subjectOf({ subject_type: query.subject_type ?? 'owner', subject_id: args.subject_id ?? null })}, oldest first`
      : args.as_of
        ? `Facts known as of ${args.as_of}`
        : args.include_inactive
          ? 'Facts, active and inactive, newest observed first'
          : 'Active facts, newest observed first';
    const text = listing(`${what} (${page.count}):`, page.facts.map(factLine), `No facts match (${what.toLowerCase()}).`, page.next_cursor);
    return { structured: { facts: page.facts, count: page.count, next_cursor: page.next_cursor ?? null }, text };
  },
});
