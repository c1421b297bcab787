import { z } from 'zod';
import { ADDITIVE, READ_ONLY, defineTool } from './define.js';
import { CursorSchema, IdSchema, LimitSchema, NameSchema, ScalarMapSchema, TimestampSchema } from './inputs.js';
import { EntityRecord, NextCursor, RelationshipRecord } from './outputs.js';
import { entityLine, listing, relationshipLine } from './render.js';

/** add_entity's arguments, which remember_many's upsert_entity operations take too. */
export const entityInput = {
  entity_type: NameSchema(128).describe('What kind of thing it is, in snake_case: "person", "organisation", "project", "place", "pet"...'),
  display_name: NameSchema(1024).optional().describe('Its usual name, e.g. "Ada Lovelace".'),
  aliases: z.array(NameSchema(256)).max(100, 'must have at most 100 items').optional().describe('Other names it goes by (nicknames, short forms), so find_entity finds it by them.'),
  attributes: ScalarMapSchema.optional().describe('Stable scalar attributes (e.g. {"birth_year": 1815}). Use remember_fact for values that change over time.'),
  memory_entity_id: IdSchema.optional().describe('To update an existing entity, its id; or an id of your choosing for a new one.'),
};

/** add_relationship's arguments, which remember_many's upsert_relationship operations take too. */
export const relationshipInput = {
  from_entity_id: IdSchema.describe('The memory_entity_id the edge leaves.'),
  to_entity_id: IdSchema.describe('The memory_entity_id the edge reaches.'),
  relationship_type: NameSchema(128).describe('The relation in snake_case, read from -> to: "works_at", "lives_in", "manages", "knows".'),
  attributes: ScalarMapSchema.optional().describe('Scalar attributes of the edge (e.g. {"role": "engineer"}).'),
  valid_from: TimestampSchema.optional().describe('When it became true in the world, if known (RFC 3339 with offset).'),
  relationship_id: IdSchema.optional().describe('To update an existing edge\'s attributes or valid_from, its id (endpoints and type cannot change).'),
};

export const findEntity = defineTool({
  name: 'find_entity',
  title: 'Find an entity',
  description: [
    'Looks up entities (the people, places, projects, organisations... of this memory\'s graph) by name or alias, and/or by type.',
    'The name matches a whole display_name or alias, case-insensitively ("ada lovelace" finds "Ada Lovelace", not "Ada"). With no name and no type it lists every entity, oldest first.',
    'Use it before add_entity, so as not to create a duplicate, and to get the memory_entity_id that add_relationship, remember_fact (subject_id) and graph_neighbourhood take.',
    'Returns the matching entities with memory_entity_id, entity_type, display_name, aliases and attributes.',
  ].join(' '),
  input: {
    name: NameSchema(1024).optional().describe('A whole display name or alias, any case.'),
    entity_type: NameSchema(128).optional().describe('Only entities of this type (e.g. "person").'),
    limit: LimitSchema.optional().describe('At most this many (1-1000, default 100).'),
    cursor: CursorSchema.optional().describe('The next_cursor of the previous call, to read the next page.'),
  },
  output: { entities: z.array(EntityRecord), count: z.number().int(), next_cursor: NextCursor },
  annotations: READ_ONLY,
  async run(args, owner) {
    const page = await owner.entities.list(args);
    const what = [args.name ? `named ${JSON.stringify(args.name)}` : '', args.entity_type ? `of type ${args.entity_type}` : ''].filter(Boolean).join(' ');
    const text = listing(`Entities ${what} (${page.count}):`.replace('  ', ' '), page.entities.map(entityLine), `No entity ${what || 'yet'}.`, page.next_cursor);
    return { structured: { entities: page.entities, count: page.count, next_cursor: page.next_cursor ?? null }, text };
  },
});

export const addEntity = defineTool({
  name: 'add_entity',
  title: 'Add an entity',
  description: [
    'Adds a node to this memory\'s graph: a person, place, organisation, project, object... that facts and relationships can be about.',
    'Call find_entity first: if it exists, reuse its memory_entity_id (pass it here to update its name, aliases or attributes; the fields you send replace the stored ones).',
    'Returns the entity with its memory_entity_id (minted as ent_... unless you chose one).',
  ].join(' '),
  input: entityInput,
  output: { entity: EntityRecord },
  annotations: ADDITIVE,
  async run(args, owner) {
    const entity = await owner.entities.upsert(args);
    const verb = args.memory_entity_id !== undefined && entity.created_at !== entity.updated_at ? 'Updated' : 'Added';
    return { structured: { entity }, text: `${verb} entity ${entityLine(entity)}.` };
  },
});

export const addRelationship = defineTool({
  name: 'add_relationship',
  title: 'Add a relationship',
  description: [
    'Adds a directed, typed edge between two entities of this memory\'s graph, e.g. Ada -[works_at]-> Acme, or Ada -[sister_of]-> Bea.',
    'Both entities must exist (add_entity, find_entity give their memory_entity_id). The direction reads from_entity_id relationship_type to_entity_id.',
    'When a relationship ends (she left Acme), retract it with forget (relationship_id); its history stays and graph_neighbourhood with as_of still shows it at earlier times.',
    'Returns the relationship with its relationship_id and observed_at.',
  ].join(' '),
  input: relationshipInput,
  output: { relationship: RelationshipRecord },
  annotations: ADDITIVE,
  async run(args, owner) {
    const relationship = await owner.relationships.upsert(args);
    return { structured: { relationship }, text: `Added relationship ${relationshipLine(relationship)}.` };
  },
});
