import { AppError } from '../errors.js';
import type { OwnerIndexes } from '../vector/indexes.js';
import type { SearchFilter } from '../vector/owner-index.js';
import { rankHybrid, rankLexical, rankSemantic, type RankedHit } from './rank.js';

export const SEARCH_MODES = ['hybrid', 'semantic', 'lexical'] as const;
export type SearchMode = (typeof SEARCH_MODES)[number];

/** One search of one owner: by text (any mode) or by a caller's vector (`text` null: semantic only). */
export interface SearchRequest {
  mode: SearchMode;
  text: string | null;
  /** The query's vector in the node's space; null when the node has no semantic model. */
  vector: Float32Array | null;
  k: number;
  filter: SearchFilter;
}

/** The hits, the mode that answered, and why when it is not the one asked (DECISIONS.md, Search). */
export interface SearchOutcome {
  hits: RankedHit[];
  mode: SearchMode;
  reason?: string;
}

/**
 * Answers a search in the mode asked when the owner's vectors can serve it. When they cannot (the node's
 * model failed to load, or the owner's passages were embedded by another embedder and await re-embedding),
 * `hybrid` is answered by the lexical index alone and says why, and `semantic` (or a search by vector) is
 * 503: a silent mix of two vector spaces, or a semantic answer without semantics, is never given.
 */
export async function searchIndexes(
  indexes: OwnerIndexes,
  request: SearchRequest,
  node: { embedderId: string; semanticUnavailable?: string | undefined },
): Promise<SearchOutcome> {
  const { vector, lexical } = indexes;
  const problem = node.semanticUnavailable ?? (vector.foreign ? foreignVectors(vector.foreign, node.embedderId) : null);
  const query = problem === null ? request.vector : null;
  if (request.mode === 'semantic' || request.text === null) {
    if (query === null) throw new AppError('unavailable', `semantic search is unavailable: ${problem ?? 'the query has no vector'}`, { expose: true });
    return { hits: await rankSemantic(vector, { ...request, text: '', vector: query }), mode: 'semantic' };
  }
  if (request.mode === 'lexical' || query === null) {
    if (query === null && request.filter.maxDistance !== undefined) {
      throw new AppError('unavailable', `max_distance cannot be applied: no cosine distance can be computed (${problem})`, { expose: true });
    }
    const hits = rankLexical(lexical, vector, { ...request, text: request.text, vector: query });
    return request.mode === 'lexical' ? { hits, mode: 'lexical' } : { hits, mode: 'lexical', reason: `answered by the lexical index alone: ${problem}` };
  }
  return { hits: await rankHybrid(lexical, vector, { ...request, text: request.text, vector: query }), mode: 'hybrid' };
}

/**
 * Why an owner's vectors cannot be searched: some of its passages were embedded by another embedder than the
 * node's (a DATA_DIR written before EMBEDDER changed), and two vector spaces are never ranked together.
 */
function foreignVectors(foreign: { passages: number; embedders: string[] }, current: string): string {
  return (
    `this owner has ${foreign.passages} ${foreign.passages === 1 ? 'passage' : 'passages'} embedded by ${foreign.embedders.join(', ')}, ` +
    `and this node embeds with ${current}; vectors of two embedders are never ranked together, so semantic ranking waits until ` +
    'the passages are re-embedded (or the node runs the embedder that made them)'
  );
}
