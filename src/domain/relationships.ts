import { invalidInput } from '../errors.js';
import type { ScalarMap } from './scalar.js';

/** A stored directed, typed edge. Instants are epoch milliseconds; `invalid_from` null means active. */
export interface Relationship {
  relationship_id: string;
  entity_id: string;
  partition: string | null;
  from_entity_id: string;
  to_entity_id: string;
  relationship_type: string;
  attributes: ScalarMap;
  valid_from: number | null;
  observed_at: number;
  invalid_from: number | null;
  created_at: number;
  updated_at: number;
}

export interface RelationshipInput {
  relationship_id: string;
  from_entity_id: string;
  to_entity_id: string;
  relationship_type: string;
  attributes?: ScalarMap | undefined;
  valid_from?: number | null | undefined;
}

/**
 * Creates an edge, or updates one in place: only `attributes` and `valid_from` change; endpoints and
 * type are immutable, and a retracted edge stays retracted (assert a new one instead).
 */
export function upsertRelationship(
  existing: Relationship | undefined,
  input: RelationshipInput,
  scope: { entity_id: string; partition: string | null },
  now: number,
): Relationship {
  if (!existing) {
    return {
      relationship_id: input.relationship_id,
      ...scope,
      from_entity_id: input.from_entity_id,
      to_entity_id: input.to_entity_id,
      relationship_type: input.relationship_type,
      attributes: input.attributes ?? {},
      valid_from: input.valid_from ?? null,
      observed_at: now,
      invalid_from: null,
      created_at: now,
      updated_at: now,
    };
  }
  for (const key of ['from_entity_id', 'to_entity_id', 'relationship_type'] as const) {
    if (existing[key] !== input[key]) {
      throw invalidInput(`${key} of relationship ${existing.relationship_id} is immutable (is ${JSON.stringify(existing[key])})`);
    }
  }
  if (existing.invalid_from !== null) {
    throw invalidInput(`relationship ${existing.relationship_id} is retracted; create a new relationship instead`);
  }
  return {
    ...existing,
    attributes: input.attributes ?? existing.attributes,
    valid_from: input.valid_from === undefined ? existing.valid_from : input.valid_from,
    updated_at: now,
  };
}

/** Soft retraction of an edge; idempotent. */
export function retractRelationship(edge: Relationship, now: number): Relationship {
  if (edge.invalid_from !== null) return edge;
  return { ...edge, invalid_from: Math.max(now, edge.observed_at), updated_at: now };
}
