/**
 * Short text renderings of records, for the model to read (the structured content carries every field).
 * One line a record, ids in brackets so that the model can pass them back to another tool.
 */
import type { Entity, Fact, Relationship, SearchHit } from './outputs.js';

const json = (value: unknown): string => JSON.stringify(value);

/** Up to this many characters of a passage in a search hit's line. */
const PASSAGE_CHARS = 300;

export function subjectOf(fact: Pick<Fact, 'subject_type' | 'subject_id'>): string {
  return fact.subject_type === 'owner' ? 'the owner' : `${fact.subject_type} ${fact.subject_id}`;
}

export function factLine(fact: Fact): string {
  const state = fact.invalid_from === null ? 'active' : `no longer known from ${fact.invalid_from}`;
  const multi = fact.cardinality === 'multi' ? ', multi' : '';
  return `${fact.predicate} = ${json(fact.value)} about ${subjectOf(fact)} (observed ${fact.observed_at}, ${state}${multi}) [${fact.fact_id}]`;
}

export function entityLine(entity: Entity): string {
  const name = entity.display_name ?? '(no name)';
  const aliases = entity.aliases.length > 0 ? `, aka ${entity.aliases.map(json).join(', ')}` : '';
  const attributes = Object.keys(entity.attributes).length > 0 ? ` ${json(entity.attributes)}` : '';
  return `${name} (${entity.entity_type}${aliases})${attributes} [${entity.memory_entity_id}]`;
}

export function relationshipLine(edge: Relationship, names: ReadonlyMap<string, string> = new Map()): string {
  const from = names.get(edge.from_entity_id) ?? edge.from_entity_id;
  const to = names.get(edge.to_entity_id) ?? edge.to_entity_id;
  const state = edge.invalid_from === null ? 'active' : `retracted from ${edge.invalid_from}`;
  return `${from} -[${edge.relationship_type}]-> ${to} (observed ${edge.observed_at}, ${state}) [${edge.relationship_id}]`;
}

export function hitLine(hit: SearchHit, rank: number): string {
  const passage = hit.passage.length > PASSAGE_CHARS ? `${hit.passage.slice(0, PASSAGE_CHARS)}…` : hit.passage;
  const title = hit.title ? ` "${hit.title}"` : '';
  const media = hit.modality === 'text' ? '' : ` (${hit.modality})`;
  return `${rank}. score ${hit.score}${title}${media} [${hit.doc_id}]: ${passage.replace(/\s+/g, ' ').trim()}`;
}

/** A heading line and the items under it, or a line that says there were none. */
export function listing(heading: string, lines: string[], none: string, nextCursor?: string | null): string {
  if (lines.length === 0) return none;
  const more = nextCursor ? `\nMore: call again with cursor ${json(nextCursor)}.` : '';
  return `${heading}\n${lines.map((l) => `- ${l}`).join('\n')}${more}`;
}
