import type { Fact, Owner, Relationship } from '@engram-memory/sdk';

/** What the seeded memory holds, for the tests to check the page against. */
export interface SeededMemory {
  /** The fact later superseded (`favorite_color = green`, observed days ago), and the one that replaced it. */
  green: Fact;
  blue: Fact;
  /** The edge later retracted (Ada → works_at → Acme) and the one that followed it (Ada → works_at → Globex). */
  retracted: Relationship;
  current: Relationship;
}

const DAY = 24 * 60 * 60 * 1000;
const daysAgo = (n: number, now: number) => new Date(now - n * DAY).toISOString();

/**
 * An owner whose memory changed over time: facts observed days ago (so the slider has room), nodes and
 * edges, then a fact superseded and an edge retracted. Nodes and edges carry the service's own clock
 * (the API takes no `observed_at` for them), so they fall after the old facts and before the changes.
 */
export async function seedMemory(owner: Owner, now = Date.now()): Promise<SeededMemory> {
  const green = await owner.facts.assert({ subject_type: 'owner', predicate: 'favorite_color', value: 'green', observed_at: daysAgo(9, now) });
  await owner.facts.assert({ subject_type: 'owner', predicate: 'home_city', value: 'London', observed_at: daysAgo(7, now) });
  await owner.facts.assert({ subject_type: 'owner', predicate: 'likes', value: 'cycling', cardinality: 'multi', observed_at: daysAgo(5, now) });

  const node = (id: string, entity_type: string, display_name: string, extra: { aliases?: string[]; attributes?: Record<string, string | number> } = {}) =>
    owner.entities.upsert({ memory_entity_id: id, entity_type, display_name, ...extra });
  await node('ada', 'person', 'Ada', { aliases: ['Ada L.'] });
  await node('acme', 'company', 'Acme', { attributes: { industry: 'robotics' } });
  await node('globex', 'company', 'Globex');
  await node('bob', 'person', 'Bob');
  await node('lisbon', 'city', 'Lisbon');

  const edge = (from: string, type: string, to: string) => owner.relationships.upsert({ from_entity_id: from, relationship_type: type, to_entity_id: to });
  const retracted = await edge('ada', 'works_at', 'acme');
  await edge('ada', 'knows', 'bob');
  await edge('bob', 'works_at', 'globex');
  await edge('ada', 'visited', 'lisbon');
  await owner.facts.assert({ subject_type: 'entity', subject_id: 'ada', predicate: 'role', value: 'engineer' });

  const blue = await owner.facts.assert({ subject_type: 'owner', predicate: 'favorite_color', value: 'blue' });
  await owner.relationships.retract(retracted.relationship_id);
  const current = await edge('ada', 'works_at', 'globex');
  await owner.facts.assert({ subject_type: 'entity', subject_id: 'ada', predicate: 'role', value: 'team lead' });
  return { green, blue, retracted, current };
}
