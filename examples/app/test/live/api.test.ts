import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Engram } from '@engram-memory/sdk';
import { seedMemory, type SeededMemory } from '../seed.js';
import { liveEnv, type RunningApp, startApp } from './harness.js';
import { startStandInLlm } from './stand-in-llm.js';

const run = crypto.randomUUID().slice(0, 8);
const LLM_KEY = `sk-stand-in-${run}-secret`;

/** A JSON call of the app: status and parsed body. */
async function call(app: RunningApp, path: string, init: { method?: string; json?: unknown } = {}) {
  const response = await fetch(`${app.url}${path}`, {
    method: init.method ?? 'GET',
    ...(init.json === undefined ? {} : { body: JSON.stringify(init.json), headers: { 'content-type': 'application/json' } }),
  });
  const text = await response.text();
  return { status: response.status, body: JSON.parse(text) as any, text, headers: response.headers };
}

describe('the app\'s JSON routes against the live Engram', () => {
  let app: RunningApp;
  let docId: string;
  const marker = `quokka${run}`;

  before(async () => {
    app = await startApp({ APP_OWNER: `app-api-${run}` });
  });
  after(() => app.close());

  test('POST /api/documents stores a document in APP_OWNER and answers 201 with its record', async () => {
    const { status, body } = await call(app, '/api/documents', {
      method: 'POST',
      json: { title: 'Island notes', content: `The ${marker} lives on Rottnest Island and is famous for smiling in photographs.`, tags: ['animals', 'travel'] },
    });
    assert.equal(status, 201);
    assert.match(body.doc_id, /^doc_/);
    assert.equal(body.entity_id, `app-api-${run}`);
    assert.equal(body.title, 'Island notes');
    assert.deepEqual(body.tags, ['animals', 'travel']);
    docId = body.doc_id;
  });

  test('POST /api/documents refuses an invalid body with 400 invalid_input naming the field', async () => {
    const empty = await call(app, '/api/documents', { method: 'POST', json: { title: 'x', content: '   ' } });
    assert.equal(empty.status, 400);
    assert.equal(empty.body.code, 'invalid_input');
    assert.match(empty.body.error, /^content: must not be empty/);
    const unknown = await call(app, '/api/documents', { method: 'POST', json: { content: 'x', colour: 'red' } });
    assert.equal(unknown.status, 400);
    assert.match(unknown.body.error, /colour/);
    const tags = await call(app, '/api/documents', { method: 'POST', json: { content: 'x', tags: 'a,b' } });
    assert.equal(tags.status, 400);
    assert.match(tags.body.error, /^tags:/);
    const broken = await fetch(`${app.url}/api/documents`, { method: 'POST', body: '{"content":', headers: { 'content-type': 'application/json' } });
    assert.equal(broken.status, 400);
    assert.equal(((await broken.json()) as { code: string }).code, 'invalid_input');
  });

  test('GET /api/documents lists it and GET /api/documents/:id reads it', async () => {
    const list = await call(app, '/api/documents');
    assert.equal(list.status, 200);
    assert.deepEqual(list.body.documents.map((d: { doc_id: string }) => d.doc_id), [docId]);
    const one = await call(app, `/api/documents/${docId}`);
    assert.equal(one.status, 200);
    assert.match(one.body.content, new RegExp(marker));
    const bad = await call(app, '/api/documents?limit=0');
    assert.equal(bad.status, 400);
    assert.match(bad.body.error, /^limit: must be at least 1/);
  });

  test('Engram\'s errors come through with their status, code and message; a malformed id is refused first', async () => {
    const missing = await call(app, '/api/documents/doc_01NOSUCHDOCUMENT0000000000');
    assert.equal(missing.status, 404);
    assert.equal(missing.body.code, 'not_found');
    assert.match(missing.body.error, /doc_01NOSUCHDOCUMENT0000000000/);
    const malformed = await call(app, `/api/documents/${encodeURIComponent('no such/id')}`);
    assert.equal(malformed.status, 400);
    assert.match(malformed.body.error, /^id: must be 1 to 128/);
  });

  test('a wrong Engram key is answered 401 from Engram, and the key is in no answer', async () => {
    const wrongKey = `sk-wrong-${run}`;
    const other = await startApp({ ENGRAM_API_KEY: wrongKey });
    try {
      const { status, body, text } = await call(other, '/api/documents');
      assert.equal(status, 401);
      assert.equal(body.code, 'unauthorized');
      assert.ok(!text.includes(wrongKey));
    } finally {
      await other.close();
    }
  });

  test('GET /api/search finds the document with a score, its passage and its title', async () => {
    const { status, body } = await call(app, `/api/search?q=${marker}&k=3`);
    assert.equal(status, 200);
    assert.equal(body.results[0].doc_id, docId);
    assert.equal(body.results[0].title, 'Island notes');
    assert.match(body.results[0].passage, new RegExp(marker));
    assert.ok(body.results[0].score > 0 && body.results[0].score <= 100);
    for (const [query, field] of [['?k=3', 'q'], [`?q=${marker}&k=0`, 'k'], [`?q=${marker}&k=many`, 'k']] as const) {
      const refused = await call(app, `/api/search${query}`);
      assert.equal(refused.status, 400, query);
      assert.match(refused.body.error, new RegExp(`^${field}:`));
    }
  });

  test('DELETE soft-deletes (hidden from list, search and count), include_deleted shows it, restore brings it back', async () => {
    assert.equal((await call(app, '/api/stats')).body.documents, 1);
    const deleted = await call(app, `/api/documents/${docId}`, { method: 'DELETE' });
    assert.equal(deleted.status, 200);
    assert.notEqual(deleted.body.deleted_at, null);
    assert.equal((await call(app, '/api/documents')).body.documents.length, 0);
    const withDeleted = await call(app, '/api/documents?include_deleted=true');
    assert.deepEqual(withDeleted.body.documents.map((d: { doc_id: string; deleted_at: string | null }) => [d.doc_id, d.deleted_at !== null]), [[docId, true]]);
    assert.equal((await call(app, `/api/search?q=${marker}`)).body.count, 0);
    assert.deepEqual((await call(app, '/api/stats')).body, { owner: `app-api-${run}`, documents: 0 });

    const restored = await call(app, `/api/documents/${docId}/restore`, { method: 'POST' });
    assert.equal(restored.status, 200);
    assert.equal(restored.body.deleted_at, null);
    assert.equal((await call(app, '/api/stats')).body.documents, 1);
    assert.equal((await call(app, `/api/search?q=${marker}`)).body.results[0].doc_id, docId);
  });

  test('GET /api/stats counts every document of the owner, not one page', async () => {
    const owner = `app-count-${run}`;
    const engram = new Engram({ baseUrl: liveEnv().ENGRAM_BASE_URL, apiKey: liveEnv().ENGRAM_API_KEY });
    const docs = Array.from({ length: 130 }, (_, i) => ({ content: `Note ${i} of the counting test.` }));
    await engram.owner(owner).documents.createMany(docs.slice(0, 100));
    await engram.owner(owner).documents.createMany(docs.slice(100));
    const counting = await startApp({ APP_OWNER: owner });
    try {
      assert.equal((await call(counting, '/api/documents?limit=100')).body.documents.length, 100);
      assert.deepEqual((await call(counting, '/api/stats')).body, { owner, documents: 130 });
    } finally {
      await counting.close();
    }
  });

  test('POST /api/chat without a language-model key: 503 with how to configure one, and the passages', async () => {
    const { status, body, text } = await call(app, '/api/chat', { method: 'POST', json: { question: `Where does the ${marker} live?` } });
    assert.equal(status, 503);
    assert.equal(body.code, 'llm_not_configured');
    assert.match(body.error, /LLM_API_KEY/);
    assert.match(body.error, /OPENAI_API_KEY/);
    assert.equal(body.sources[0].doc_id, docId);
    assert.match(body.sources[0].passage, /Rottnest Island/);
    assert.ok(!text.includes(liveEnv().ENGRAM_API_KEY));
    const refused = await call(app, '/api/chat', { method: 'POST', json: { question: '' } });
    assert.equal(refused.status, 400);
    assert.match(refused.body.error, /^question: must not be empty/);
  });

  test('POST /api/chat with a stand-in OpenAI-compatible server: the passages go to it, its answer comes back', async () => {
    const llm = await startStandInLlm(() => ({ status: 200, body: { model: 'stand-in-1', choices: [{ message: { role: 'assistant', content: 'It lives on Rottnest Island [1].' } }] } }));
    const chatting = await startApp({ APP_OWNER: `app-api-${run}`, LLM_API_KEY: LLM_KEY, LLM_BASE_URL: llm.baseUrl, LLM_MODEL: 'stand-in-model' });
    try {
      const { status, body } = await call(chatting, '/api/chat', { method: 'POST', json: { question: `Where does the ${marker} live?` } });
      assert.equal(status, 200);
      assert.equal(body.answer, 'It lives on Rottnest Island [1].');
      assert.equal(body.model, 'stand-in-1');
      assert.equal(body.sources[0].doc_id, docId);
      assert.equal(llm.received.length, 1);
      const [request] = llm.received;
      assert.equal(request!.method, 'POST');
      assert.equal(request!.path, '/v1/chat/completions');
      assert.equal(request!.headers.authorization, `Bearer ${LLM_KEY}`);
      assert.equal(request!.body.model, 'stand-in-model');
      const prompt = (request!.body.messages ?? []).map((m) => m.content).join('\n');
      assert.match(prompt, /famous for smiling in photographs/);
      assert.match(prompt, new RegExp(`Question: Where does the ${marker} live\\?`));
    } finally {
      await chatting.close();
      await llm.close();
    }
  });

  test('POST /api/chat when the provider fails: 502 with its message (never the key), and the passages', async () => {
    const llm = await startStandInLlm(() => ({ status: 401, body: { error: { message: `Incorrect API key provided: ${LLM_KEY}.` } } }));
    const chatting = await startApp({ APP_OWNER: `app-api-${run}`, OPENAI_API_KEY: LLM_KEY, LLM_BASE_URL: llm.baseUrl });
    try {
      const { status, body, text } = await call(chatting, '/api/chat', { method: 'POST', json: { question: `Where does the ${marker} live?` } });
      assert.equal(status, 502);
      assert.equal(body.code, 'llm_provider_error');
      assert.match(body.error, /answered 401: Incorrect API key provided/);
      assert.ok(!text.includes(LLM_KEY), 'the key is not in the answer');
      assert.equal(body.sources[0].doc_id, docId);
    } finally {
      await chatting.close();
      await llm.close();
    }
  });
});

describe('the read-only memory routes against the live Engram', () => {
  let app: RunningApp;
  let seeded: SeededMemory;
  const owner = `app-memory-${run}`;
  const path = `/api/memory/${owner}`;

  before(async () => {
    app = await startApp({});
    seeded = await seedMemory(new Engram({ baseUrl: liveEnv().ENGRAM_BASE_URL, apiKey: liveEnv().ENGRAM_API_KEY }).owner(owner));
  });
  after(() => app.close());

  const values = (facts: { predicate: string; value: unknown }[], predicate: string) => facts.filter((f) => f.predicate === predicate).map((f) => f.value).sort();

  test('entities: every node of the owner', async () => {
    const { status, body } = await call(app, `${path}/entities`);
    assert.equal(status, 200);
    assert.deepEqual(body.entities.map((e: { memory_entity_id: string }) => e.memory_entity_id), ['ada', 'acme', 'globex', 'bob', 'lisbon']);
  });

  test('facts: active now by default, the whole history with history=true, what was known with as_of', async () => {
    assert.deepEqual(values((await call(app, `${path}/facts`)).body.facts, 'favorite_color'), ['blue']);
    assert.deepEqual(values((await call(app, `${path}/facts?history=true`)).body.facts, 'favorite_color'), ['blue', 'green']);
    const before = await call(app, `${path}/facts?as_of=${encodeURIComponent(seeded.retracted.observed_at)}`);
    assert.deepEqual(values(before.body.facts, 'favorite_color'), ['green']);
    const refused = await call(app, `${path}/facts?as_of=yesterday`);
    assert.equal(refused.status, 400);
    assert.match(refused.body.error, /^as_of: must be an RFC 3339 instant/);
    assert.equal((await call(app, `${path}/facts?history=true&as_of=${encodeURIComponent(seeded.blue.observed_at)}`)).status, 400);
  });

  test('relationships: the retracted edge only in the history', async () => {
    const ids = async (query: string) => (await call(app, `${path}/relationships${query}`)).body.relationships.map((r: { relationship_id: string }) => r.relationship_id);
    assert.ok(!(await ids('')).includes(seeded.retracted.relationship_id));
    assert.ok((await ids('?history=true')).includes(seeded.retracted.relationship_id));
  });

  test('graph: the retracted edge before its retraction, gone now; validated; unknown node is Engram\'s 404', async () => {
    const edgesOf = (body: { edges: { relationship_id: string }[] }) => body.edges.map((e) => e.relationship_id);
    const then = await call(app, `${path}/graph?node=ada&depth=1&as_of=${encodeURIComponent(seeded.blue.observed_at)}`);
    assert.equal(then.status, 200);
    assert.ok(edgesOf(then.body).includes(seeded.retracted.relationship_id));
    assert.ok(!edgesOf(then.body).includes(seeded.current.relationship_id));
    const now = await call(app, `${path}/graph?node=ada&depth=2`);
    assert.ok(!edgesOf(now.body).includes(seeded.retracted.relationship_id));
    assert.ok(edgesOf(now.body).includes(seeded.current.relationship_id));
    assert.equal(now.body.nodes[0].memory_entity_id, 'ada');
    assert.deepEqual(now.body.nodes.map((n: { memory_entity_id: string }) => n.memory_entity_id).sort(), ['ada', 'bob', 'globex', 'lisbon']);
    assert.equal((await call(app, `${path}/graph?node=ada&depth=4`)).status, 400);
    assert.equal((await call(app, `${path}/graph`)).status, 400);
    const unknown = await call(app, `${path}/graph?node=nobody`);
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.code, 'not_found');
  });

  test('an owner id over 256 characters is refused before Engram is asked', async () => {
    const { status, body } = await call(app, `/api/memory/${'o'.repeat(257)}/entities`);
    assert.equal(status, 400);
    assert.match(body.error, /^owner: must be at most 256 characters/);
  });
});

describe('the static files', () => {
  let app: RunningApp;
  before(async () => {
    app = await startApp({});
  });
  after(() => app.close());

  test('the pages, the graph library from node_modules and the API reference at /docs', async () => {
    for (const [path, type, text] of [
      ['/', 'text/html', 'Add a document'],
      ['/memory', 'text/html', 'Memory over time'],
      ['/static/js/memory.js', 'javascript', 'createGraphView'],
      ['/vendor/cytoscape.esm.min.mjs', 'javascript', 'cytoscape'],
      ['/docs', 'text/html', 'swagger'],
    ] as const) {
      const response = await fetch(`${app.url}${path}`);
      assert.equal(response.status, 200, path);
      assert.match(response.headers.get('content-type') ?? '', new RegExp(type), path);
      assert.match(await response.text(), new RegExp(text, 'i'), path);
    }
    // A path out of public/ is refused by @koa/send (403), whatever its spelling.
    for (const path of ['/static/..%2fpackage.json', '/static/%2e%2e/package.json', '/static/js/..%2f..%2fpackage.json']) {
      const escape = await fetch(`${app.url}${path}`);
      assert.ok([403, 404].includes(escape.status), `${path}: ${escape.status}`);
      assert.doesNotMatch(await escape.text(), /engram-reference-app/);
    }
  });
});
