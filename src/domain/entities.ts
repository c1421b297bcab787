import type { ScalarMap } from './scalar.js';

/** A typed node of an owner's graph. */
export interface Entity {
  memory_entity_id: string;
  entity_id: string;
  partition: string | null;
  entity_type: string;
  display_name: string | null;
  aliases: string[];
  attributes: ScalarMap;
  created_at: number;
  updated_at: number;
}

export interface EntityInput {
  memory_entity_id: string;
  entity_type: string;
  display_name?: string | undefined;
  aliases?: string[] | undefined;
  attributes?: ScalarMap | undefined;
}

/** Creates a node, or updates it: fields the caller sends replace the stored ones, others stay. */
export function upsertEntity(
  existing: Entity | undefined,
  input: EntityInput,
  scope: { entity_id: string; partition: string | null },
  now: number,
): Entity {
  if (!existing) {
    return {
      memory_entity_id: input.memory_entity_id,
      ...scope,
      entity_type: input.entity_type,
      display_name: input.display_name ?? null,
      aliases: input.aliases ?? [],
      attributes: input.attributes ?? {},
      created_at: now,
      updated_at: now,
    };
  }
  return {
    ...existing,
    entity_type: input.entity_type,
    display_name: input.display_name ?? existing.display_name,
    aliases: input.aliases ?? existing.aliases,
    attributes: input.attributes ?? existing.attributes,
    updated_at: now,
  };
}
