import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isEntity, isFact, isRelationship, type MemoryOperation, NotFoundError } from '@engram-memory/sdk';
import { client, ownerId } from './harness.js';

describe('memory graph through the SDK', () => {
  const engram = client();

  test('entities: upsert (mint and update), get, list, forget', async () => {
    const owner = engram.owner(ownerId('entities'));
    const ada = await owner.entities.upsert({ entity_type: 'person', display_name: 'Ada Lovelace', aliases: ['Countess of Lovelace'] });
    assert.match(ada.memory_entity_id, /^ent_/);
    assert.equal((await owner.entities.get(ada.memory_entity_id)).display_name, 'Ada Lovelace');
    const renamed = await owner.entities.upsert({ entity_type: 'person', memory_entity_id: ada.memory_entity_id, display_name: 'Ada King' });
    assert.equal(renamed.memory_entity_id, ada.memory_entity_id);
    await owner.entities.upsert({ entity_type: 'project', display_name: 'Analytical Engine' });
    const people = await owner.entities.list({ entity_type: 'person' });
    assert.deepEqual(people.entities.map((e) => e.display_name), ['Ada King']);
    const report = await owner.entities.forget(ada.memory_entity_id);
    assert.equal(report.erased.entities, 1);
    assert.equal((await owner.entities.list()).count, 1);
  });

  test('relationships: upsert, list active and inactive, retract', async () => {
    const owner = engram.owner(ownerId('edges'));
    const ada = await owner.entities.upsert({ entity_type: 'person', display_name: 'Ada' });
    const engine = await owner.entities.upsert({ entity_type: 'project', display_name: 'Analytical Engine' });
    const edge = await owner.relationships.upsert({ from_entity_id: ada.memory_entity_id, to_entity_id: engine.memory_entity_id, relationship_type: 'works_on', attributes: { role: 'programmer' } });
    assert.equal(edge.invalid_from, null);
    assert.equal((await owner.relationships.list({ from_entity_id: ada.memory_entity_id })).count, 1);
    const retracted = await owner.relationships.retract(edge.relationship_id);
    assert.notEqual(retracted.invalid_from, null);
    assert.equal((await owner.relationships.list({ relationship_type: 'works_on' })).count, 0);
    assert.equal((await owner.relationships.list({ relationship_type: 'works_on', include_inactive: true })).count, 1);
  });

  test('graph: a neighbourhood by depth, now and as of before an edge was retracted, with its facts', async () => {
    const owner = engram.owner(ownerId('graph'));
    const ada = await owner.entities.upsert({ entity_type: 'person', display_name: 'Ada' });
    const charles = await owner.entities.upsert({ entity_type: 'person', display_name: 'Charles' });
    const engine = await owner.entities.upsert({ entity_type: 'project', display_name: 'Analytical Engine' });
    const knows = await owner.relationships.upsert({ from_entity_id: ada.memory_entity_id, to_entity_id: charles.memory_entity_id, relationship_type: 'knows' });
    await owner.relationships.upsert({ from_entity_id: charles.memory_entity_id, to_entity_id: engine.memory_entity_id, relationship_type: 'designed' });
    await owner.facts.assert({ subject_type: 'entity', subject_id: charles.memory_entity_id, predicate: 'city', value: 'London' });
    const near = await owner.graph(ada.memory_entity_id);
    assert.deepEqual(near.nodes.map((n) => n.display_name), ['Ada', 'Charles']);
    assert.equal(near.facts, undefined);
    const far = await owner.graph(ada.memory_entity_id, { depth: 2, include_facts: true });
    assert.deepEqual(far.nodes.map((n) => n.display_name), ['Ada', 'Charles', 'Analytical Engine']);
    assert.equal(far.edges.length, 2);
    assert.deepEqual(far.facts?.map((f) => f.value), ['London']);
    const beforeRetraction = new Date().toISOString();
    await new Promise((resolve) => setTimeout(resolve, 5));
    await owner.relationships.retract(knows.relationship_id);
    assert.deepEqual((await owner.graph(ada.memory_entity_id, { depth: 3 })).nodes.map((n) => n.display_name), ['Ada']);
    const then = await owner.graph(ada.memory_entity_id, { depth: 3, as_of: beforeRetraction, direction: 'outgoing' });
    assert.deepEqual(then.nodes.map((n) => n.display_name), ['Ada', 'Charles', 'Analytical Engine']);
  });

  test('batch: nodes, an edge, a fact superseded in the same batch and retractions, in order; a refused batch leaves nothing', async () => {
    const owner = engram.owner(ownerId('batch'));
    const mood = await owner.facts.assert({ predicate: 'mood', value: 'calm' });
    const yesterday = new Date(Date.now() - 86_400_000).toISOString();
    const { results, count } = await owner.batch(
      [
        { op: 'upsert_entity', entity_type: 'person', memory_entity_id: 'ada', display_name: 'Ada' },
        { op: 'upsert_entity', entity_type: 'project', memory_entity_id: 'engine', aliases: ['AE'] },
        { op: 'upsert_relationship', from_entity_id: 'ada', to_entity_id: 'engine', relationship_type: 'works_on', relationship_id: 'ada-engine' },
        { op: 'assert_fact', subject_type: 'entity', subject_id: 'ada', predicate: 'city', value: 'London', observed_at: yesterday },
        { op: 'assert_fact', subject_type: 'entity', subject_id: 'ada', predicate: 'city', value: 'Paris' },
        { op: 'retract_fact', fact_id: mood.fact_id },
        { op: 'retract_relationship', relationship_id: 'ada-engine' },
      ],
      { idempotencyKey: `batch-${mood.fact_id}` },
    );
    assert.equal(count, 7);
    // Typed by position: no narrowing needed for an array literal.
    const [ada, engine, edge, london, paris, calm, retracted] = results;
    assert.deepEqual([ada.display_name, engine.aliases, edge.relationship_id], ['Ada', ['AE'], 'ada-engine']);
    assert.deepEqual([london.value, paris.value, paris.supersedes_fact_id], ['London', 'Paris', london.fact_id]);
    assert.equal(calm.fact_id, mood.fact_id);
    assert.notEqual(calm.invalid_from, null);
    assert.notEqual(retracted.invalid_from, null);
    // The guards tell a record's kind apart when the operations are not a literal.
    const kinds = (results as (typeof results)[number][]).map((r) => (isEntity(r) ? 'entity' : isRelationship(r) ? 'relationship' : isFact(r) ? 'fact' : '?'));
    assert.deepEqual(kinds, ['entity', 'entity', 'relationship', 'fact', 'fact', 'fact', 'relationship']);
    const chain = await owner.facts.history({ subject_type: 'entity', subject_id: 'ada', predicate: 'city' });
    assert.deepEqual(chain.map((f) => [f.value, f.invalid_from === null]), [['London', false], ['Paris', true]]);

    const refused: MemoryOperation[] = [
      { op: 'upsert_entity', entity_type: 'person', memory_entity_id: 'cid' },
      { op: 'assert_fact', predicate: 'colour', value: 'blue' },
      { op: 'upsert_relationship', from_entity_id: 'cid', to_entity_id: 'zed', relationship_type: 'knows' },
    ];
    await assert.rejects(owner.batch(refused), (err: unknown) => {
      assert.ok(err instanceof NotFoundError, `not a NotFoundError: ${String(err)}`);
      assert.equal(err.message, 'operations[2]: memory entity zed not found');
      return true;
    });
    assert.deepEqual((await owner.entities.list()).entities.map((e) => e.memory_entity_id), ['ada', 'engine']);
    assert.equal((await owner.facts.list({ predicate: 'colour', include_inactive: true })).count, 0);
  });

  test('facts: assert, supersede, as_of, history, retract, consolidate', async () => {
    const owner = engram.owner(ownerId('facts'));
    const yesterday = new Date(Date.now() - 86_400_000);
    const green = await owner.facts.assert({ predicate: 'favorite_color', value: 'green', observed_at: yesterday.toISOString() });
    const blue = await owner.facts.assert({ predicate: 'favorite_color', value: 'blue' });
    assert.equal(blue.supersedes_fact_id, green.fact_id);
    const then = await owner.facts.list({ predicate: 'favorite_color', as_of: new Date(yesterday.getTime() + 3_600_000).toISOString() });
    assert.deepEqual(then.facts.map((f) => f.value), ['green']);
    const chain = await owner.facts.history({ subject_type: 'owner', predicate: 'favorite_color' });
    assert.deepEqual(chain.map((f) => f.value), ['green', 'blue']);

    await owner.facts.assert({ predicate: 'hobby', value: 'Chess', cardinality: 'multi' });
    await owner.facts.assert({ predicate: 'hobby', value: '  chess ', cardinality: 'multi' });
    const report = await owner.consolidate();
    assert.deepEqual(report, { active_facts_before: 3, active_facts_after: 2, retracted: 1 });
    const retracted = await owner.facts.retract(blue.fact_id);
    assert.notEqual(retracted.invalid_from, null);
    assert.deepEqual((await owner.facts.list()).facts.map((f) => f.predicate), ['hobby']);
  });

  test('iterators follow next_cursor across pages: 25 facts by 10, 11 entities by 5, 6 edges by 4; entities found by name', async () => {
    const owner = engram.owner(ownerId('cursors'));
    for (let i = 0; i < 25; i++) await owner.facts.assert({ predicate: `reading_${i}`, value: i });
    const firstPage = await owner.facts.list({ limit: 10 });
    assert.equal(firstPage.count, 10);
    assert.equal(typeof firstPage.next_cursor, 'string');
    const values: unknown[] = [];
    for await (const fact of owner.facts.iterate({ limit: 10 })) values.push(fact.value);
    assert.deepEqual(values, Array.from({ length: 25 }, (_, i) => 24 - i), 'newest observed first, none twice');

    const ada = await owner.entities.upsert({ entity_type: 'person', display_name: 'Ada Lovelace', aliases: ['Countess of Lovelace'] });
    for (let i = 0; i < 10; i++) await owner.entities.upsert({ entity_type: 'project', display_name: `project ${i}` });
    const names: (string | null)[] = [];
    for await (const entity of owner.entities.iterate({ limit: 5 })) names.push(entity.display_name);
    assert.deepEqual(names, ['Ada Lovelace', ...Array.from({ length: 10 }, (_, i) => `project ${i}`)], 'oldest first');
    const byAlias = await owner.entities.list({ name: 'countess of lovelace' });
    assert.deepEqual(byAlias.entities.map((e) => e.memory_entity_id), [ada.memory_entity_id]);

    const targets = (await owner.entities.list({ entity_type: 'project', limit: 6 })).entities;
    for (const target of targets) await owner.relationships.upsert({ from_entity_id: ada.memory_entity_id, to_entity_id: target.memory_entity_id, relationship_type: 'works_on' });
    const edges: string[] = [];
    for await (const edge of owner.relationships.iterate({ limit: 4 })) edges.push(edge.to_entity_id);
    assert.deepEqual(new Set(edges), new Set(targets.map((t) => t.memory_entity_id)));
    assert.equal(edges.length, 6);
  });
});
