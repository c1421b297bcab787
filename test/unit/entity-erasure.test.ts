import { describe, expect, it } from 'vitest';
import type { Entity } from '../../src/domain/entities.js';
import { erasedCounts, planEntityErasure, type FactsAbout } from '../../src/domain/entity-erasure.js';
import type { Fact, SubjectType } from '../../src/domain/facts.js';
import type { Relationship } from '../../src/domain/relationships.js';

const owner = { entity_id: 'user-1', partition: null };
const node = (id: string): Entity => ({ memory_entity_id: id, ...owner, entity_type: 'person', display_name: null, aliases: [], attributes: {}, created_at: 1, updated_at: 1 });
const edge = (id: string, from: string, to: string, invalidFrom: number | null = null): Relationship => ({
  relationship_id: id,
  ...owner,
  from_entity_id: from,
  to_entity_id: to,
  relationship_type: 'knows',
  attributes: {},
  valid_from: null,
  observed_at: 1,
  invalid_from: invalidFrom,
  created_at: 1,
  updated_at: 1,
});
const fact = (id: string, subjectType: SubjectType, subjectId: string | null, invalidFrom: number | null = null): Fact => ({
  fact_id: id,
  ...owner,
  subject_type: subjectType,
  subject_id: subjectId,
  predicate: 'p',
  value: subjectId ?? 'ann', // an owner fact whose value names the node: data, not a reference
  cardinality: 'single',
  valid_from: null,
  observed_at: 1,
  invalid_from: invalidFrom,
  supersedes_fact_id: null,
  created_at: 1,
  updated_at: 1,
});

/** A fact store to ask, as the actor's index answers: by subject, every state. */
function factsOf(facts: Fact[]): FactsAbout {
  return (type, id) => facts.filter((f) => f.subject_type === type && f.subject_id === id);
}

const ids = <T>(records: T[], key: keyof T) => records.map((r) => r[key]).sort();

describe('planEntityErasure', () => {
  const facts = [
    fact('f-ann', 'entity', 'ann'),
    fact('f-ann-old', 'entity', 'ann', 5), // superseded
    fact('f-ann-retracted', 'entity', 'ann', 7),
    fact('f-out', 'relationship', 'ann-bob'),
    fact('f-in-old', 'relationship', 'carl-ann', 3),
    fact('f-loop', 'relationship', 'ann-ann'),
    fact('f-owner', 'owner', null),
    fact('f-bob', 'entity', 'bob'),
    fact('f-bob-carl', 'relationship', 'bob-carl'),
  ];

  it('takes the node, its edges in both directions in any state, and every fact about them', () => {
    const edges = [edge('ann-bob', 'ann', 'bob'), edge('carl-ann', 'carl', 'ann', 9), edge('ann-ann', 'ann', 'ann')];
    const erasure = planEntityErasure(node('ann'), edges, factsOf(facts));
    expect(erasure.entity.memory_entity_id).toBe('ann');
    expect(ids(erasure.relationships, 'relationship_id')).toEqual(['ann-ann', 'ann-bob', 'carl-ann']);
    expect(ids(erasure.facts, 'fact_id')).toEqual(['f-ann', 'f-ann-old', 'f-ann-retracted', 'f-in-old', 'f-loop', 'f-out']);
    expect(erasedCounts(erasure)).toEqual({ entities: 1, relationships: 3, facts: 6 });
  });

  it('counts a self-loop once though both endpoint indexes list it', () => {
    const loop = edge('ann-ann', 'ann', 'ann');
    const erasure = planEntityErasure(node('ann'), [loop, loop], factsOf(facts));
    expect(erasure.relationships).toEqual([loop]);
    expect(erasedCounts(erasure)).toEqual({ entities: 1, relationships: 1, facts: 4 });
  });

  it('keeps edges between other nodes, and facts about anything else, whatever the sources hand it', () => {
    // A stale index entry may hand over an edge that no longer touches the node; a sloppy source, facts of other subjects.
    const everything: FactsAbout = () => facts;
    const erasure = planEntityErasure(node('ann'), [edge('bob-carl', 'bob', 'carl')], everything);
    expect(erasure.relationships).toEqual([]);
    expect(ids(erasure.facts, 'fact_id')).toEqual(['f-ann', 'f-ann-old', 'f-ann-retracted']);
  });

  it('erases only the node when nothing hangs on it', () => {
    expect(erasedCounts(planEntityErasure(node('dan'), [], factsOf(facts)))).toEqual({ entities: 1, relationships: 0, facts: 0 });
  });
});
