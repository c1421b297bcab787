import { z } from 'zod';
import { ADDITIVE, READ_ONLY, defineTool } from './define.js';
import { DOCUMENT_MAX_BYTES, MODALITIES, NameSchema, ScalarMapSchema, SEARCH_MODES, TagsSchema } from './inputs.js';
import { DocumentRecord, SearchHitRecord } from './outputs.js';
import { hitLine } from './render.js';

const ContentSchema = z
  .string()
  .refine((text) => text.trim() !== '', 'must not be empty')
  .refine((text) => Buffer.byteLength(text, 'utf8') <= DOCUMENT_MAX_BYTES, `must be at most ${DOCUMENT_MAX_BYTES} bytes of UTF-8`);

export const addMemory = defineTool({
  name: 'add_memory',
  title: 'Add a memory text',
  description: [
    'Stores a piece of text in memory as a document: a note, a conversation summary, a message, an excerpt; anything worth finding again by meaning.',
    'It is indexed for hybrid (semantic and keyword) search at once; find it with search_memories.',
    'Use remember_fact instead for a single structured statement whose latest value matters (a preference, a status): facts keep their history and answer as_of; texts are found by search.',
    'Returns the stored document\'s doc_id and created_at.',
  ].join(' '),
  input: {
    content: ContentSchema.describe('The text to remember (plain text or Markdown, up to 1 MiB). Self-contained: say who and what, not "he" or "this".'),
    title: NameSchema(1024).optional().describe('A short title, shown in search results.'),
    content_type: z.enum(['text/plain', 'text/markdown'], { error: 'must be one of text/plain, text/markdown' }).optional().describe('Default text/plain.'),
    metadata: ScalarMapSchema.optional().describe('Scalar key-value pairs to keep with it (e.g. {"kind": "meeting-notes"}).'),
    tags: TagsSchema.optional().describe('Labels (at most 100).'),
    source: NameSchema(1024).optional().describe('Where the text came from (e.g. "chat", "email").'),
  },
  output: { document: DocumentRecord },
  annotations: ADDITIVE,
  async run(args, owner) {
    const document = await owner.documents.create(args);
    const title = document.title ? ` "${document.title}"` : '';
    return { structured: { document }, text: `Stored memory${title} [${document.doc_id}] (${args.content.length} characters, created ${document.created_at}); it is searchable now.` };
  },
});

export const searchMemories = defineTool({
  name: 'search_memories',
  title: 'Search memories',
  description: [
    'Searches the memory texts (add_memory) and media captions or transcripts by meaning and keywords (hybrid search by default), best match first.',
    'Use it to answer questions from what was stored earlier, before saying you do not know. Phrase the query as the information you want ("where does Ada work"), not as an instruction.',
    'Returns up to k hits, each with doc_id, score (0-100, higher is better), the best-matching passage and its title. Facts are not searched here: use recall_facts.',
  ].join(' '),
  input: {
    query: z.string().trim().min(1, 'must not be empty').max(4096, 'must be at most 4096 characters').describe('What to look for, in natural language or keywords.'),
    k: z.number().int('must be an integer').min(1, 'must be at least 1').max(100, 'must be at most 100').optional().describe('How many hits at most (1-100, default 10).'),
    mode: z.enum(SEARCH_MODES, { error: `must be one of ${SEARCH_MODES.join(', ')}` }).optional().describe('"hybrid" (default), "semantic" (meaning only) or "lexical" (words only).'),
    max_distance: z.number().min(0, 'must be at least 0').max(2, 'must be at most 2').optional().describe('Drop hits whose cosine distance to the query is above this (0-2); omit to get the top k.'),
    modality: z.enum(MODALITIES, { error: `must be one of ${MODALITIES.join(', ')}` }).optional().describe('Only text, image or audio memories.'),
    include_content: z.boolean().optional().describe('true: also return each hit\'s whole text (longer answers).'),
  },
  output: {
    results: z.array(SearchHitRecord),
    count: z.number().int(),
    search_mode: z.enum(SEARCH_MODES),
    search_mode_reason: z.string().optional(),
  },
  annotations: READ_ONLY,
  async run({ query, ...params }, owner) {
    const answer = await owner.search(query, params);
    const reason = answer.search_mode_reason ? ` (${answer.search_mode_reason})` : '';
    const heading = `${answer.count} memories match ${JSON.stringify(query)}, best first (${answer.search_mode} search${reason}):`;
    const text = answer.count === 0 ? `No memory matches ${JSON.stringify(query)}.` : [heading, ...answer.results.map((hit, i) => hitLine(hit, i + 1))].join('\n');
    const structured = { results: answer.results, count: answer.count, search_mode: answer.search_mode, ...(answer.search_mode_reason ? { search_mode_reason: answer.search_mode_reason } : {}) };
    return { structured, text };
  },
});
