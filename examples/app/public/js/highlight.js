// @ts-check
/**
 * Marks the query's words in a passage. Works on text only: the passage is split into plain strings and
 * <mark> elements, so that nothing in a document is ever read as HTML.
 */

/** Short English words that every passage has: marking them would hide the words that matter. */
const STOPWORDS = new Set('a an and are as at be but by do does for from has have how i in is it its of on or so that the their there this to was what when where which who why will with you'.split(' '));

/** The words of a query worth marking (two letters or more, not a stopword), longest first so that longer words win. @param {string} query */
export function queryTerms(query) {
  const words = (query.toLowerCase().match(/[\p{L}\p{N}]{2,}/gu) ?? []).filter((word) => !STOPWORDS.has(word));
  return [...new Set(words)].sort((a, b) => b.length - a.length);
}

/** @param {string} text */
const escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The passage as nodes, each query term (and words it starts, "tea" in "teas") inside a <mark>.
 * @param {string} passage
 * @param {string} query
 * @returns {DocumentFragment}
 */
export function highlight(passage, query) {
  const fragment = document.createDocumentFragment();
  const terms = queryTerms(query);
  if (terms.length === 0) {
    fragment.append(passage);
    return fragment;
  }
  const pattern = new RegExp(`(?<![\\p{L}\\p{N}])(${terms.map(escapeRegExp).join('|')})[\\p{L}\\p{N}]*`, 'giu');
  let last = 0;
  for (const match of passage.matchAll(pattern)) {
    const start = match.index ?? 0;
    if (start > last) fragment.append(passage.slice(last, start));
    const mark = document.createElement('mark');
    mark.textContent = match[0];
    fragment.append(mark);
    last = start + match[0].length;
  }
  if (last < passage.length) fragment.append(passage.slice(last));
  return fragment;
}
