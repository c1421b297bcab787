import { fused, zScore, zToScore } from '../domain/fusion.js';
import { scoreOf } from '../domain/search.js';
import type { OwnerVectorIndex, SearchFilter } from '../vector/owner-index.js';
import type { LexicalIndex } from './lexical-index.js';

/** One document's best passage as ranked: `distance` is null only when no vector of this space exists for it. */
export interface RankedHit {
  label: number;
  docId: string;
  distance: number | null;
  score: number;
}

/** What a search ranks with: the query's words, and its vector when the owner's vectors can be compared to it. */
export interface RankInput {
  text: string;
  vector: Float32Array;
  k: number;
  filter: SearchFilter;
}

/**
 * How many candidates each ranking brings to the fusion: a document outside both top lists would need to be
 * middling in both to win, which the pool never showed (bench/retrieval.ts).
 */
const candidatesFor = (k: number) => Math.max(200, 4 * k);

/** `semantic`: nearest vectors; score from the distance (DECISIONS.md, Search). */
export async function rankSemantic(vectors: OwnerVectorIndex, input: RankInput): Promise<RankedHit[]> {
  return (await vectors.search(input.vector, input.k, input.filter)).map((hit) => ({ ...hit, score: scoreOf(hit.distance) }));
}

/**
 * `lexical`: BM25 order, one hit per document (its best passage), each with its cosine distance when the
 * owner's vectors are in the query's space (`vector` given) so that `max_distance` filters before ranking.
 */
export function rankLexical(lexical: LexicalIndex, vectors: OwnerVectorIndex, input: Omit<RankInput, 'vector'> & { vector: Float32Array | null }): RankedHit[] {
  const scores = lexical.score(input.text);
  const { filter, vector } = input;
  // Passages best first until k documents are found: a document's later passages are skipped, so ask for more while they crowd in.
  for (let wanted = input.k * 2; ; wanted *= 4) {
    const passages = scores.top(wanted, (label) => allowed(lexical, vectors, label, filter));
    const hits: RankedHit[] = [];
    const seen = new Set<string>();
    for (const [label, value] of passages) {
      const docId = lexical.docOf(label)!;
      if (seen.has(docId)) continue;
      const distance = vector ? (vectors.distanceOf(label, vector) ?? null) : null;
      if (filter.maxDistance !== undefined && (distance === null || distance > filter.maxDistance)) continue;
      seen.add(docId);
      hits.push({ label, docId, distance, score: zToScore(zScore(value, scores.stats)) });
      if (hits.length >= input.k) return hits;
    }
    if (passages.length < wanted) return hits;
  }
}

/**
 * `hybrid`: the semantic and lexical candidates, each passage valued by its cosine z-score and its BM25
 * z-score weighed by its coverage of the query (src/domain/fusion.ts), `max_distance` applied before
 * ranking, one hit per document.
 */
export async function rankHybrid(lexical: LexicalIndex, vectors: OwnerVectorIndex, input: RankInput): Promise<RankedHit[]> {
  const { vector, filter } = input;
  const wanted = candidatesFor(input.k);
  // A large owner's vector side runs in the vector worker while the lexical side is scored here.
  const semantic = vectors.searchWithStats(vector, wanted, { ...filter, maxDistance: undefined });
  semantic.catch(() => undefined);
  const lexicalScores = lexical.score(input.text);
  const topLexical = lexicalScores.top(wanted, (l) => allowed(lexical, vectors, l, filter));
  const { hits: nearest, stats: cosineStats } = await semantic;
  const distances = new Map<number, { docId: string; distance: number }>();
  for (const hit of nearest) distances.set(hit.label, hit);
  for (const [label] of topLexical) {
    const docId = lexical.docOf(label);
    const distance = vectors.distanceOf(label, vector);
    if (docId !== undefined && distance !== undefined && !distances.has(label)) distances.set(label, { docId, distance });
  }
  const best = new Map<string, { label: number; distance: number; value: number }>();
  for (const [label, { docId, distance }] of distances) {
    if (filter.maxDistance !== undefined && distance > filter.maxDistance) continue;
    const value = fused(zScore(1 - distance, cosineStats), zScore(lexicalScores.get(label), lexicalScores.stats), lexicalScores.coverage(label));
    const seen = best.get(docId);
    if (!seen || value > seen.value) best.set(docId, { label, distance, value });
  }
  return [...best]
    .sort(([aId, a], [bId, b]) => b.value - a.value || (aId < bId ? -1 : aId > bId ? 1 : 0))
    .slice(0, input.k)
    .map(([docId, hit]) => ({ label: hit.label, docId, distance: hit.distance, score: zToScore(hit.value) }));
}

/** Whether a passage's document is live, readable by the principal and of the filter's modality. */
function allowed(lexical: LexicalIndex, vectors: OwnerVectorIndex, label: number, filter: SearchFilter): boolean {
  const docId = lexical.docOf(label);
  return docId !== undefined && vectors.allowsDoc(docId, filter);
}
