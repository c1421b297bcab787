import type { Entity, Fact, MemoryRecord, Relationship } from './types.js';

/** Whether a record of a batch's results is an entity (a node). */
export const isEntity = (record: MemoryRecord): record is Entity => 'memory_entity_id' in record;

/** Whether a record of a batch's results is a relationship (an edge). */
export const isRelationship = (record: MemoryRecord): record is Relationship => 'relationship_id' in record;

/** Whether a record of a batch's results is a fact. */
export const isFact = (record: MemoryRecord): record is Fact => 'fact_id' in record;
