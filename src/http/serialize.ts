import type { z } from 'zod';
import type { Entity } from '../domain/entities.js';
import type { Fact } from '../domain/facts.js';
import type { Relationship } from '../domain/relationships.js';
import type { EntitySchema, FactSchema, RelationshipSchema } from './schemas/records.js';
import { formatNullableTimestamp as tsOrNull, formatTimestamp as ts } from '../domain/time.js';

/** Records are stored with epoch milliseconds; responses carry RFC 3339 UTC with milliseconds, in spec order. */
export function entityJson(e: Entity): z.output<typeof EntitySchema> {
  return {
    memory_entity_id: e.memory_entity_id,
    entity_id: e.entity_id,
    partition: e.partition,
    entity_type: e.entity_type,
    display_name: e.display_name,
    aliases: e.aliases,
    attributes: e.attributes,
    created_at: ts(e.created_at),
    updated_at: ts(e.updated_at),
  };
}

export function relationshipJson(r: Relationship): z.output<typeof RelationshipSchema> {
  return {
    relationship_id: r.relationship_id,
    entity_id: r.entity_id,
    partition: r.partition,
    from_entity_id: r.from_entity_id,
    to_entity_id: r.to_entity_id,
    relationship_type: r.relationship_type,
    attributes: r.attributes,
    valid_from: tsOrNull(r.valid_from),
    observed_at: ts(r.observed_at),
    invalid_from: tsOrNull(r.invalid_from),
    created_at: ts(r.created_at),
    updated_at: ts(r.updated_at),
  };
}

export function factJson(f: Fact): z.output<typeof FactSchema> {
  return {
    fact_id: f.fact_id,
    entity_id: f.entity_id,
    partition: f.partition,
    subject_type: f.subject_type,
    subject_id: f.subject_id,
    predicate: f.predicate,
    value: f.value,
    cardinality: f.cardinality,
    valid_from: tsOrNull(f.valid_from),
    observed_at: ts(f.observed_at),
    invalid_from: tsOrNull(f.invalid_from),
    supersedes_fact_id: f.supersedes_fact_id,
    created_at: ts(f.created_at),
    updated_at: ts(f.updated_at),
  };
}
