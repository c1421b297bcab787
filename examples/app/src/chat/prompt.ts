import type { Source } from '../sources.js';

/** A message of the OpenAI-compatible chat API. */
export interface ChatMessage {
  role: 'system' | 'user';
  content: string;
}

const SYSTEM = [
  'You answer questions using only the numbered passages from the user\'s documents given below.',
  'Cite the passages you use by their number in square brackets, e.g. [1].',
  'When the passages do not hold the answer, say so plainly instead of guessing.',
].join(' ');

/** The messages sent to the language model: the rules, then the retrieved passages and the question. */
export function buildMessages(question: string, sources: Source[]): ChatMessage[] {
  const passages = sources.length === 0
    ? '(no passage was found)'
    : sources.map((s, i) => `[${i + 1}] ${s.title ? `${s.title}: ` : ''}${s.passage}`).join('\n\n');
  return [
    { role: 'system', content: SYSTEM },
    { role: 'user', content: `Passages:\n${passages}\n\nQuestion: ${question}` },
  ];
}
