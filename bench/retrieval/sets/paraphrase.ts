/**
 * `../shared/eval/paraphrase.json`: hand-written memories, each with a paraphrase query that shares no
 * content word with it and sometimes a lexical twin that does, plus distractors that share words with the
 * queries. Every memory and every distractor is one document; each query's target is its memory.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import type { EvalSet } from '../types.js';

const ParaphraseFileSchema = z.object({
  pairs: z.array(z.object({ memory: z.string().min(1), query: z.string().min(1), lexical: z.string().min(1).optional() })).min(1),
  distractors: z.array(z.string().min(1)),
});

export function buildParaphraseSet(json: unknown): EvalSet {
  const { pairs, distractors } = ParaphraseFileSchema.parse(json);
  return {
    name: 'paraphrase',
    about: `${pairs.length} hand-written memories + ${distractors.length} distractors; paraphrase queries share no content word with their memory, lexical twins do`,
    documents: [...pairs.map((p) => p.memory), ...distractors],
    queries: {
      paraphrase: pairs.map((p, target) => ({ text: p.query, target })),
      'lexical twin': pairs.flatMap((p, target) => (p.lexical ? [{ text: p.lexical, target }] : [])),
    },
  };
}

export function readParaphraseSet(path: string): EvalSet {
  return buildParaphraseSet(JSON.parse(readFileSync(path, 'utf8')));
}
