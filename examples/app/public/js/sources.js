// @ts-check
import { h } from './dom.js';
import { highlight } from './highlight.js';

/**
 * One retrieved passage: its document's title, its score (0-100) as a number and a bar, and the passage
 * with the query's words marked.
 * @param {{ doc_id: string, title: string | null, score: number, passage: string }} hit
 * @param {string} query
 * @param {number} [index] shown as [n] when given (chat sources, cited by number)
 */
export function sourceItem(hit, query, index) {
  const score = Math.max(0, Math.min(100, hit.score));
  // Engram indexes a document's title with its text, so a passage may open with it: shown once is enough.
  const heading = hit.title ? `${hit.title}\n\n` : null;
  const passage = heading && hit.passage.startsWith(heading) ? hit.passage.slice(heading.length) : hit.passage;
  return h('li.hit', { dataset: { docId: hit.doc_id } },
    h('div.hit-head', null,
      index !== undefined ? h('span.cite', null, `[${index}]`) : null,
      h('strong', null, hit.title ?? 'Untitled'),
      h('span.score', { title: 'Relevance score, 0 to 100' },
        h('span.score-bar', { 'aria-hidden': 'true' }, h('span', { style: `width:${score}%` })),
        `score ${hit.score.toFixed(1)}`)),
    h('p.passage', null, highlight(passage, query)));
}
