import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MEMORIES } from '../fixtures/memories.js';
import { requireTestModel } from '../helpers/model.js';
import { startTestService, type TestService } from '../helpers/service.js';


const addDoc = async (svc: TestService, entity: string, content: string) => {
  const res = await svc.call('POST', `/v1/documents?entity_id=${entity}`, { body: { content } });
  expect(res.status).toBe(201);
  return res.body.doc_id as string;
};
const search = (svc: TestService, entity: string, q: string, extra = '') => svc.call('GET', `/v1/search?entity_id=${entity}&q=${encodeURIComponent(q)}&k=3${extra}`);

describe('search with EMBEDDER=model (all-MiniLM-L6-v2)', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ env: { EMBEDDER: 'model', EMBEDDINGS_MODEL_DIR: requireTestModel() } });
  });
  afterAll(async () => {
    await svc?.stop();
  });

  it('GET /status says the model embedder runs, beside the members it always had', async () => {
    const res = await svc.call('GET', '/status', { key: null });
    expect(res.body).toMatchObject({ store: { ready: true }, temporal: { ready: false } });
    expect(res.body.embedder).toEqual({ id: 'all-minilm-l6-v2-384', kind: 'model' });
  });

  it('finds a memory from a paraphrase that shares no content word with it', async () => {
    const ids = new Map<string, string>();
    for (const memory of MEMORIES) ids.set(memory, await addDoc(svc, 'm-para', memory));
    const res = await search(svc, 'm-para', 'What does the user like to drink?');
    expect(res.status).toBe(200);
    expect(res.body.results.map((r: any) => r.doc_id)).toContain(ids.get('Ann prefers green tea over coffee.'));
  });

  it('hybrid: a passage sharing a word or two of the question does not outrank the one that answers it', async () => {
    const cases = [
      { q: 'Where does she currently live?', answer: 'She moved to Berlin last year.', distractor: 'She currently shares a flat with two roommates.' },
      { q: 'How much do I pay for housing?', answer: 'The apartment rent is 1,800 dollars a month.', distractor: 'The housing market is cooling, I read.' },
    ];
    const ids = new Map<string, string>();
    for (const text of cases.flatMap((c) => [c.answer, c.distractor])) ids.set(text, await addDoc(svc, 'm-hybrid', text));
    for (const { q, answer, distractor } of cases) {
      const lexical = await search(svc, 'm-hybrid', q, '&mode=lexical');
      expect(lexical.body.results[0].doc_id, q).toBe(ids.get(distractor));
      const hybrid = await search(svc, 'm-hybrid', q);
      expect(hybrid.body.search_mode).toBe('hybrid');
      expect(hybrid.body.results[0].doc_id, q).toBe(ids.get(answer));
    }
    // A passage holding the whole query is found first by its words.
    const exact = await search(svc, 'm-hybrid', 'housing market cooling');
    expect(exact.body.results[0].doc_id).toBe(ids.get('The housing market is cooling, I read.'));
    expect(exact.body.results.every((r: any) => typeof r.distance === 'number')).toBe(true);
  });

});

describe('search with EMBEDDER=model and no model folder', () => {
  let svc: TestService;
  const empty = mkdtempSync(join(tmpdir(), 'engram-no-model-'));
  beforeAll(async () => {
    svc = await startTestService({ env: { EMBEDDER: 'model', EMBEDDINGS_MODEL_DIR: join(empty, 'absent') } });
  });
  afterAll(async () => {
    await svc?.stop();
    rmSync(empty, { recursive: true, force: true });
  });

  it('falls back to the hashing embedder, says so in GET /status, and searches by words alone, saying why', async () => {
    const status = await svc.call('GET', '/status', { key: null });
    expect(status.body.embedder).toMatchObject({ id: 'local-hash-v1-384', kind: 'hash', fallback: expect.stringMatching(/absent does not exist; the hashing embedder runs instead \(run `npm install`/) });
    const id = await addDoc(svc, 'm-fallback', 'The blue heron nests by the river in spring.');
    await addDoc(svc, 'm-fallback', 'Invoices are due at the end of the month.');
    const res = await search(svc, 'm-fallback', 'heron nests river');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ search_mode: 'lexical', search_mode_reason: expect.stringContaining('the hashing embedder runs instead') });
    expect(res.body.results.map((r: any) => r.doc_id)).toEqual([id]);
    // No semantic answer without a semantic model: semantic mode and search by vector are 503.
    expect((await search(svc, 'm-fallback', 'heron', '&mode=semantic')).status).toBe(503);
    const byVector = await svc.call('POST', '/v1/search/embed?entity_id=m-fallback', { body: { vector: new Array(384).fill(0.05) } });
    expect(byVector.status).toBe(503);
  });
});

describe('a DATA_DIR whose passages another embedder made', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'engram-two-spaces-'));
  const hash = { dataDir };
  const model = { dataDir, env: { EMBEDDER: 'model', EMBEDDINGS_MODEL_DIR: requireTestModel() } };
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('never ranks vectors of two embedders together: that owner is searched by its words alone, and semantic search is 503, until its vectors are of one space', async () => {
    let svc = await startTestService(hash);
    const tea = await addDoc(svc, 'm-old', 'Ann prefers green tea over coffee.');
    await addDoc(svc, 'm-old', 'The library closes early on public holidays.');
    expect((await search(svc, 'm-old', 'green tea')).body.results[0].doc_id).toBe(tea);
    await svc.stop();

    svc = await startTestService(model);
    const lexical = await search(svc, 'm-old', 'green tea');
    expect(lexical.status).toBe(200);
    expect(lexical.body).toMatchObject({ search_mode: 'lexical', search_mode_reason: expect.stringContaining('this owner has 2 passages embedded by local-hash-v1-384, and this node embeds with all-minilm-l6-v2-384') });
    expect(lexical.body.results.map((r: any) => [r.doc_id, r.distance])).toEqual([[tea, null]]);
    const refused = await search(svc, 'm-old', 'green tea', '&mode=semantic');
    expect(refused.status).toBe(503);
    expect(refused.body).toMatchObject({ code: 'unavailable', error: expect.stringContaining('this owner has 2 passages embedded by local-hash-v1-384') });
    const noDistance = await search(svc, 'm-old', 'green tea', '&max_distance=0.5');
    expect(noDistance.status).toBe(503);
    // Writes and reads of the owner's documents go on; only the mixed ranking is refused.
    await addDoc(svc, 'm-old', 'Bob parks his bicycle in the garage.');
    expect((await svc.call('GET', '/v1/documents?entity_id=m-old')).body.count).toBe(3);
    // An owner whose passages this embedder made searches normally beside it.
    const fresh = await addDoc(svc, 'm-new', 'Ann prefers green tea over coffee.');
    await addDoc(svc, 'm-new', 'The library closes early on public holidays.');
    expect((await search(svc, 'm-new', 'What does the user like to drink?')).body.results[0].doc_id).toBe(fresh);
    await svc.stop();

    // Back on the hashing embedder, the model's passage is the foreign one.
    svc = await startTestService(hash);
    const back = await search(svc, 'm-old', 'green tea', '&mode=semantic');
    expect(back.status).toBe(503);
    expect(back.body.error).toContain('this owner has 1 passage embedded by all-minilm-l6-v2-384');
    await svc.stop();
  });
});
