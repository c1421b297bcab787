/**
 * What an agent does with its memory, through the MCP client, against the live service: the same suite over
 * stdio and over HTTP. `connect(owner)` opens a session whose owner the host fixed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { call, engram, ok, ownerId, textOf, type Connection } from './harness.js';

interface Fact { fact_id: string; value: unknown; supersedes_fact_id: string | null; invalid_from: string | null; observed_at: string }
interface Entity { memory_entity_id: string; display_name: string | null }
interface Relationship { relationship_id: string; from_entity_id: string; to_entity_id: string; invalid_from: string | null }

const EXPECTED_TOOLS = [
  'add_entity', 'add_memory', 'add_relationship', 'find_entity', 'forget', 'graph_neighbourhood', 'recall_facts', 'remember_fact', 'remember_many', 'search_memories',
];
/** forget retracts; remember_many may (a retract_* operation), so it carries the same warning. */
const DESTRUCTIVE_TOOLS = ['forget', 'remember_many'];
const READ_ONLY_TOOLS = ['find_entity', 'graph_neighbourhood', 'recall_facts', 'search_memories'];

export function memoryScenario(transport: string, connect: (owner: string) => Promise<Connection>): void {
  describe(`the memory tools over ${transport}`, () => {
    const owner = ownerId(transport);
    let conn: Connection;
    before(async () => {
      conn = await connect(owner);
    });
    after(async () => {
      await conn.close();
    });

    test('lists every tool with a description, its hints and an output schema; no owner argument, no erase', async () => {
      const { tools } = await conn.client.listTools();
      assert.deepEqual(tools.map((t) => t.name).sort(), EXPECTED_TOOLS);
      for (const tool of tools) {
        assert.ok((tool.description ?? '').length > 150, `${tool.name} has a description a model can use`);
        const hints = tool.annotations ?? {};
        assert.equal(hints.readOnlyHint, READ_ONLY_TOOLS.includes(tool.name), `${tool.name} readOnlyHint`);
        assert.equal(hints.destructiveHint, DESTRUCTIVE_TOOLS.includes(tool.name), `${tool.name} destructiveHint`);
        assert.equal(typeof hints.idempotentHint, 'boolean', `${tool.name} idempotentHint`);
        assert.equal(hints.openWorldHint, false);
        assert.equal(tool.outputSchema?.type, 'object', `${tool.name} outputSchema`);
        assert.equal(tool.inputSchema.additionalProperties, false, `${tool.name} refuses unknown arguments`);
        assert.equal('owner' in (tool.inputSchema.properties ?? {}), false, `${tool.name} offers no owner argument`);
      }
      assert.equal(tools.find((t) => t.name === 'forget')?.annotations?.idempotentHint, true);
      const many = tools.find((t) => t.name === 'remember_many');
      assert.equal(many?.annotations?.idempotentHint, false, 'a repeated batch asserts its facts again');
      assert.match(many?.description ?? '', /At most 100 operations/);
      assert.match(conn.client.getInstructions() ?? '', /long-term memory/);
    });

    test('remember a fact, supersede it, recall it now, as of before the change, and its history', async () => {
      const hourAgo = new Date(Date.now() - 60 * 60_000);
      const first = ok<{ fact: Fact }>(await call(conn.client, 'remember_fact', { predicate: 'favorite_color', value: 'green', observed_at: hourAgo.toISOString() })).fact;
      const second = await call(conn.client, 'remember_fact', { predicate: 'favorite_color', value: 'blue' });
      const blue = ok<{ fact: Fact }>(second).fact;
      assert.equal(blue.supersedes_fact_id, first.fact_id);
      assert.match(textOf(second), new RegExp(`favorite_color = "blue".*superseding ${first.fact_id}`));

      const now = await call(conn.client, 'recall_facts', { predicate: 'favorite_color' });
      assert.deepEqual(ok<{ facts: Fact[] }>(now).facts.map((f) => f.value), ['blue']);
      assert.match(textOf(now), /Active facts.*\n- favorite_color = "blue"/);

      const halfHourAgo = new Date(hourAgo.getTime() + 30 * 60_000).toISOString();
      const then = await call(conn.client, 'recall_facts', { predicate: 'favorite_color', as_of: halfHourAgo });
      assert.deepEqual(ok<{ facts: Fact[] }>(then).facts.map((f) => f.value), ['green']);
      assert.match(textOf(then), new RegExp(`as of ${halfHourAgo}`));

      const history = ok<{ facts: Fact[] }>(await call(conn.client, 'recall_facts', { predicate: 'favorite_color', history: true })).facts;
      assert.deepEqual(history.map((f) => [f.value, f.invalid_from === null]), [['green', false], ['blue', true]]);
      assert.equal(history[0]?.invalid_from, blue.observed_at, 'the old value stops being known when the new one is observed');

      // The session's owner is the one the host fixed: the SDK sees the fact under it.
      const direct = await engram.owner(owner).facts.list({ predicate: 'favorite_color' });
      assert.deepEqual(direct.facts.map((f) => f.fact_id), [blue.fact_id]);
    });

    test('multi facts coexist, and supersedes_fact_id replaces one of them', async () => {
      const en = ok<{ fact: Fact }>(await call(conn.client, 'remember_fact', { predicate: 'speaks', value: 'English', cardinality: 'multi' })).fact;
      ok(await call(conn.client, 'remember_fact', { predicate: 'speaks', value: 'French', cardinality: 'multi' }));
      const de = ok<{ fact: Fact }>(await call(conn.client, 'remember_fact', { predicate: 'speaks', value: 'German', cardinality: 'multi', supersedes_fact_id: en.fact_id })).fact;
      assert.equal(de.supersedes_fact_id, en.fact_id);
      const active = ok<{ facts: Fact[] }>(await call(conn.client, 'recall_facts', { predicate: 'speaks' })).facts;
      assert.deepEqual(active.map((f) => f.value).sort(), ['French', 'German']);
    });

    test('add a memory text and find it by search', async () => {
      const added = await call(conn.client, 'add_memory', { content: 'Ada keeps her bicycle in the blue shed behind the lighthouse.', title: 'Where the bicycle is' });
      const { document } = ok<{ document: { doc_id: string } }>(added);
      assert.match(textOf(added), /Stored memory "Where the bicycle is" \[doc_/);
      const found = await call(conn.client, 'search_memories', { query: 'where is the bicycle kept', k: 3 });
      const { results } = ok<{ results: { doc_id: string; score: number }[] }>(found);
      assert.equal(results[0]?.doc_id, document.doc_id);
      assert.match(textOf(found), new RegExp(`^1\\. score [0-9.]+ "Where the bicycle is" \\[${document.doc_id}\\]: .*Ada keeps her bicycle in the blue shed`, 'm'));
    });

    test('entities, a relationship, the neighbourhood now and before a retraction, forget', async () => {
      const ada = ok<{ entity: Entity }>(await call(conn.client, 'add_entity', { entity_type: 'person', display_name: 'Ada Lovelace', aliases: ['Ada'] })).entity;
      const acme = ok<{ entity: Entity }>(await call(conn.client, 'add_entity', { entity_type: 'organisation', display_name: 'Acme' })).entity;
      const found = await call(conn.client, 'find_entity', { name: 'ada' });
      assert.deepEqual(ok<{ entities: Entity[] }>(found).entities.map((e) => e.memory_entity_id), [ada.memory_entity_id]);
      assert.match(textOf(found), /Ada Lovelace \(person, aka "Ada"\)/);

      const edge = ok<{ relationship: Relationship }>(
        await call(conn.client, 'add_relationship', { from_entity_id: ada.memory_entity_id, to_entity_id: acme.memory_entity_id, relationship_type: 'works_at' }),
      ).relationship;
      ok(await call(conn.client, 'remember_fact', { subject_type: 'entity', subject_id: acme.memory_entity_id, predicate: 'city', value: 'Leeds' }));
      const beforeRetraction = new Date().toISOString();
      await new Promise((r) => setTimeout(r, 20));

      const graph = await call(conn.client, 'graph_neighbourhood', { memory_entity_id: ada.memory_entity_id, include_facts: true });
      const g = ok<{ nodes: Entity[]; edges: Relationship[]; facts: Fact[] }>(graph);
      assert.deepEqual(g.nodes.map((n) => n.memory_entity_id), [ada.memory_entity_id, acme.memory_entity_id]);
      assert.deepEqual(g.edges.map((e) => e.relationship_id), [edge.relationship_id]);
      assert.deepEqual(g.facts.map((f) => f.value), ['Leeds']);
      assert.match(textOf(graph), /Ada Lovelace -\[works_at\]-> Acme/);

      // Parameters reach the route: from Acme, only incoming edges lead to Ada; of another type, none.
      const outgoing = ok<{ nodes: Entity[] }>(await call(conn.client, 'graph_neighbourhood', { memory_entity_id: acme.memory_entity_id, direction: 'outgoing' }));
      assert.deepEqual(outgoing.nodes.map((n) => n.memory_entity_id), [acme.memory_entity_id]);
      const incoming = ok<{ nodes: Entity[] }>(await call(conn.client, 'graph_neighbourhood', { memory_entity_id: acme.memory_entity_id, direction: 'incoming', depth: 2 }));
      assert.deepEqual(incoming.nodes.map((n) => n.memory_entity_id), [acme.memory_entity_id, ada.memory_entity_id]);
      const otherType = ok<{ edges: Relationship[] }>(await call(conn.client, 'graph_neighbourhood', { memory_entity_id: ada.memory_entity_id, relationship_type: 'knows' }));
      assert.deepEqual(otherType.edges, []);

      const forgot = await call(conn.client, 'forget', { relationship_id: edge.relationship_id });
      assert.notEqual(ok<{ relationship: Relationship }>(forgot).relationship.invalid_from, null);
      const nowGraph = ok<{ nodes: Entity[]; edges: Relationship[] }>(await call(conn.client, 'graph_neighbourhood', { memory_entity_id: ada.memory_entity_id }));
      assert.deepEqual([nowGraph.nodes.length, nowGraph.edges.length], [1, 0]);
      const pastGraph = ok<{ edges: Relationship[] }>(await call(conn.client, 'graph_neighbourhood', { memory_entity_id: ada.memory_entity_id, as_of: beforeRetraction }));
      assert.deepEqual(pastGraph.edges.map((e) => e.relationship_id), [edge.relationship_id]);
    });

    test('forget a fact: recall stops returning it, history keeps it; forgetting again changes nothing', async () => {
      const fact = ok<{ fact: Fact }>(await call(conn.client, 'remember_fact', { predicate: 'mood', value: 'tired' })).fact;
      const forgot = ok<{ fact: Fact }>(await call(conn.client, 'forget', { fact_id: fact.fact_id })).fact;
      assert.notEqual(forgot.invalid_from, null);
      assert.deepEqual(ok<{ facts: Fact[] }>(await call(conn.client, 'recall_facts', { predicate: 'mood' })).facts, []);
      const history = ok<{ facts: Fact[] }>(await call(conn.client, 'recall_facts', { predicate: 'mood', history: true })).facts;
      assert.deepEqual(history.map((f) => f.fact_id), [fact.fact_id]);
      const again = ok<{ fact: Fact }>(await call(conn.client, 'forget', { fact_id: fact.fact_id })).fact;
      assert.equal(again.invalid_from, forgot.invalid_from);
    });

    test('remember_many: entities, an edge and two facts in one call; the second fact supersedes the first; recall shows the history', async () => {
      const hourAgo = new Date(Date.now() - 60 * 60_000).toISOString();
      const stored = await call(conn.client, 'remember_many', {
        operations: [
          { op: 'upsert_entity', entity_type: 'person', display_name: 'Grace Hopper', memory_entity_id: 'grace' },
          { op: 'upsert_entity', entity_type: 'organisation', display_name: 'Navy', memory_entity_id: 'navy' },
          { op: 'upsert_relationship', from_entity_id: 'grace', to_entity_id: 'navy', relationship_type: 'served_in', relationship_id: 'grace-navy' },
          { op: 'assert_fact', subject_type: 'entity', subject_id: 'grace', predicate: 'rank', value: 'Commander', observed_at: hourAgo },
          { op: 'assert_fact', subject_type: 'entity', subject_id: 'grace', predicate: 'rank', value: 'Rear Admiral' },
        ],
      });
      const { results, count } = ok<{ results: { op: string; entity?: Entity; relationship?: Relationship; fact?: Fact }[]; count: number }>(stored);
      assert.equal(count, 5);
      assert.deepEqual(results.map((r) => r.op), ['upsert_entity', 'upsert_entity', 'upsert_relationship', 'assert_fact', 'assert_fact']);
      assert.deepEqual([results[0]?.entity?.memory_entity_id, results[2]?.relationship?.relationship_id], ['grace', 'grace-navy']);
      const [commander, admiral] = [results[3]?.fact as Fact, results[4]?.fact as Fact];
      assert.equal(admiral.supersedes_fact_id, commander.fact_id, 'a single fact supersedes the one asserted earlier in the same call');
      const text = textOf(stored);
      assert.match(text, /^Stored 5 operations, all in one transaction:/);
      assert.match(text, /^- operations\[0\]: entity Grace Hopper \(person\) \[grace\]$/m);
      assert.match(text, /^- operations\[2\]: relationship grace -\[served_in\]-> navy .*\[grace-navy\]$/m);
      assert.match(text, new RegExp(`^- operations\\[4\\]: fact rank = "Rear Admiral" about entity grace .*superseding ${commander.fact_id} \\(kept in history\\)$`, 'm'));

      const history = ok<{ facts: Fact[] }>(await call(conn.client, 'recall_facts', { subject_type: 'entity', subject_id: 'grace', predicate: 'rank', history: true })).facts;
      assert.deepEqual(history.map((f) => [f.value, f.invalid_from === null]), [['Commander', false], ['Rear Admiral', true]]);
      assert.equal(history[0]?.invalid_from, admiral.observed_at);
      const graph = ok<{ edges: Relationship[] }>(await call(conn.client, 'graph_neighbourhood', { memory_entity_id: 'grace' }));
      assert.deepEqual(graph.edges.map((e) => e.relationship_id), ['grace-navy']);

      const retracted = await call(conn.client, 'remember_many', {
        operations: [
          { op: 'retract_relationship', relationship_id: 'grace-navy' },
          { op: 'retract_fact', fact_id: admiral.fact_id },
        ],
      });
      const gone = ok<{ results: { op: string; relationship?: Relationship; fact?: Fact }[] }>(retracted).results;
      assert.notEqual(gone[0]?.relationship?.invalid_from, null);
      assert.notEqual(gone[1]?.fact?.invalid_from, null);
      assert.match(textOf(retracted), /^- operations\[0\]: retracted relationship grace -\[served_in\]-> navy .*retracted from/m);
      assert.deepEqual(ok<{ edges: Relationship[] }>(await call(conn.client, 'graph_neighbourhood', { memory_entity_id: 'grace' })).edges, []);
      assert.deepEqual(ok<{ facts: Fact[] }>(await call(conn.client, 'recall_facts', { subject_type: 'entity', subject_id: 'grace', predicate: 'rank' })).facts, []);
    });

    test('remember_many refused by the service (an edge to a missing entity): a tool error naming operations[i], and nothing stored', async () => {
      const refused = await call(conn.client, 'remember_many', {
        operations: [
          { op: 'assert_fact', predicate: 'refused_batch_marker', value: 'kept?' },
          { op: 'upsert_entity', entity_type: 'person', memory_entity_id: 'orphan' },
          { op: 'upsert_relationship', from_entity_id: 'orphan', to_entity_id: 'nobody', relationship_type: 'knows' },
          { op: 'assert_fact', subject_type: 'entity', subject_id: 'orphan', predicate: 'mood', value: 'lonely' },
        ],
      });
      assert.equal(refused.isError, true);
      assert.match(textOf(refused), /^Engram API error 404 not_found: operations\[2\]: memory entity nobody not found, request_id \S+/);
      const direct = engram.owner(owner);
      assert.deepEqual((await direct.facts.list({ predicate: 'refused_batch_marker', include_inactive: true })).facts, []);
      assert.deepEqual((await direct.entities.list({ entity_type: 'person' })).entities.filter((e) => e.memory_entity_id === 'orphan'), []);
    });

    test('remember_many with a bad argument: a tool error naming the operation, before any request, and nothing stored', async () => {
      const bad = await call(conn.client, 'remember_many', {
        operations: [
          { op: 'assert_fact', predicate: 'input_batch_marker', value: 1 },
          { op: 'assert_fact', predicate: 'input_batch_marker', value: { nested: true } },
        ],
      });
      assert.equal(bad.isError, true);
      assert.match(textOf(bad), /must be scalar.*at operations\[1\]\.value/s);
      assert.deepEqual(ok<{ facts: Fact[] }>(await call(conn.client, 'recall_facts', { predicate: 'input_batch_marker', include_inactive: true })).facts, []);
    });

    test('bad input is a tool error naming the argument and the rule, before any request', async () => {
      const cases: [string, Record<string, unknown>, RegExp][] = [
        ['remember_fact', { predicate: 'x', value: { nested: true } }, /must be scalar.*at value/s],
        ['remember_fact', { predicate: 'x', value: 1, observed_at: '2026-01-01 10:00' }, /RFC 3339 timestamp with a time zone offset.*at observed_at/s],
        ['remember_fact', { predicate: 'x', value: 1, subject_type: 'entity' }, /is required when subject_type is entity at subject_id/],
        ['remember_fact', { predicate: 'p'.repeat(257), value: 1 }, /must be at most 256 characters at predicate/],
        ['forget', { fact_id: 'bad id!' }, /must match \^\[A-Za-z0-9\].* at fact_id/],
        ['forget', {}, /give exactly one of fact_id and relationship_id/],
        ['recall_facts', { history: true }, /requires predicate at history/],
        ['recall_facts', { limit: 1001 }, /must be at most 1000 at limit/],
        ['search_memories', { query: 'x', k: 101 }, /must be at most 100 at k/],
        ['graph_neighbourhood', { memory_entity_id: 'ent_x', depth: 4 }, /must be at most 3 at depth/],
        ['add_memory', { content: 'x', owner: 'someone-else' }, /Unrecognized key.*"owner"/],
        ['remember_many', { operations: [] }, /must not be empty at operations/],
        ['remember_many', { operations: Array.from({ length: 101 }, () => ({ op: 'assert_fact', predicate: 'p', value: 1 })) }, /must have at most 100 operations.*at operations/],
        ['remember_many', { operations: [{ op: 'forget_everything' }] }, /must be one of upsert_entity, .* at operations\[0\]\.op/],
        ['remember_many', { operations: [{ op: 'retract_fact' }] }, /at operations\[0\]\.fact_id/],
        ['remember_many', { operations: [{ op: 'upsert_entity', entity_type: 'x' }, { op: 'upsert_entity', entity_type: 'x', colour: 'red' }] }, /Unrecognized key.*"colour".*at operations\[1\]/s],
        ['remember_many', { operations: [{ op: 'assert_fact', predicate: 'p', value: 1, subject_type: 'entity' }] }, /is required when subject_type is entity at operations\[0\]\.subject_id/],
        ['remember_many', { operations: [{ op: 'upsert_relationship', from_entity_id: 'a', to_entity_id: 'bad id!', relationship_type: 'knows' }] }, /must match .* at operations\[0\]\.to_entity_id/],
      ];
      for (const [tool, args, message] of cases) {
        const result = await call(conn.client, tool, args);
        assert.equal(result.isError, true, `${tool} ${JSON.stringify(args).slice(0, 60)} is a tool error`);
        assert.match(textOf(result), message);
      }
    });

    test('an API error comes back as a tool error with the API\'s status, code and message', async () => {
      const missing = await call(conn.client, 'forget', { fact_id: 'fact_does_not_exist' });
      assert.equal(missing.isError, true);
      assert.match(textOf(missing), /^Engram API error 404 not_found: .*fact_does_not_exist.*request_id \S+/);
      const graph = await call(conn.client, 'graph_neighbourhood', { memory_entity_id: 'ent_nowhere' });
      assert.match(textOf(graph), /^Engram API error 404 not_found/);
      const stale = await call(conn.client, 'remember_fact', { predicate: 'p', value: 1, supersedes_fact_id: 'fact_unknown' });
      assert.match(textOf(stale), /^Engram API error 400 invalid_input: .*supersedes_fact_id/);
    });
  });
}
