import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEYS, startTestService, type TestService } from '../helpers/service.js';

interface Corpus {
  documents: Array<{ key: string; title: string; content: string }>;
  queries: Array<{ q: string; expected: string[] }>;
}
const corpus = JSON.parse(readFileSync(new URL('../fixtures/search-corpus.json', import.meta.url), 'utf8')) as Corpus;

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => {
  await svc?.stop();
});

const addDoc = async (entity: string, content: string, extra = '', key?: string) => {
  const res = await svc.call('POST', `/v1/documents?entity_id=${entity}${extra}`, { body: { content }, key });
  expect(res.status).toBe(201);
  return res.body.doc_id as string;
};
const search = (entity: string, q: string, extra = '', key?: string) =>
  svc.call('GET', `/v1/search?entity_id=${entity}&q=${encodeURIComponent(q)}${extra}`, { key });

describe('search', () => {
  it('finds a document as soon as its 201 returns, with score, distance and best passage', async () => {
    const id = await addDoc('s-basic', 'The blue heron nests by the river in spring.');
    await addDoc('s-basic', 'Invoices are due at the end of the month.');
    const res = await search('s-basic', 'heron nesting river', '&mode=semantic');
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(res.body.results.length);
    expect(res.body.search_mode).toBe('semantic');
    const [top] = res.body.results;
    expect(top).toMatchObject({ doc_id: id, modality: 'text', content_type: 'text/plain', passage: 'The blue heron nests by the river in spring.' });
    // In semantic mode the score is the cosine similarity as a percentage (DECISIONS.md, Search).
    expect(top.score).toBe(Math.round(100 * Math.max(0, 1 - top.distance) * 100) / 100);
    expect(top.content).toBeUndefined();
    const scores = res.body.results.map((r: any) => r.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    const withContent = await search('s-basic', 'heron', '&include_content=true&k=1');
    expect(withContent.body.results).toHaveLength(1);
    expect(withContent.body.results[0].content).toBe('The blue heron nests by the river in spring.');
  });

  it('a long document is split into passages and the hit carries the passage that matched', async () => {
    const filler = Array.from({ length: 60 }, (_, i) => `Paragraph ${i} talks about general ledger entries and accounting periods.`).join('\n\n');
    const content = `${filler}\n\nThe lighthouse keeper polished the great Fresnel lens every evening.\n\n${filler}`;
    const id = await addDoc('s-long', content);
    const res = await search('s-long', 'lighthouse keeper Fresnel lens');
    expect(res.body.results[0].doc_id).toBe(id);
    expect(res.body.results[0].passage).toContain('Fresnel lens');
    expect(res.body.results[0].passage.length).toBeLessThan(content.length / 4);
    expect(res.body.results).toHaveLength(1);
  });

  it('soft delete hides a hit at once, restore brings it back, hard delete removes it', async () => {
    const id = await addDoc('s-del', 'Zebra crossing near the school');
    const hit = async () => (await search('s-del', 'zebra crossing school')).body.results.some((r: any) => r.doc_id === id);
    expect(await hit()).toBe(true);
    await svc.call('DELETE', `/v1/documents/${id}?entity_id=s-del`);
    expect(await hit()).toBe(false);
    await svc.call('POST', `/v1/documents/${id}/restore?entity_id=s-del`);
    expect(await hit()).toBe(true);
    await svc.call('DELETE', `/v1/documents/${id}?entity_id=s-del&hard=true`);
    expect(await hit()).toBe(false);
  });

  it('answers in hybrid mode by default, lexical or semantic on request, and every hit carries its cosine distance', async () => {
    const quokka = await addDoc('s-mode', 'The quokka smiled at the camera on Rottnest Island.');
    await addDoc('s-mode', 'Camera batteries drain fast in the cold.');
    await addDoc('s-mode', 'Island ferries leave every hour.');
    const hybrid = await search('s-mode', 'quokka camera');
    expect(hybrid.body).toMatchObject({ search_mode: 'hybrid', count: 3 });
    expect(hybrid.body.search_mode_reason).toBeUndefined();
    expect(hybrid.body.results[0].doc_id).toBe(quokka);
    const lexical = await search('s-mode', 'quokka', '&mode=lexical');
    expect(lexical.body).toMatchObject({ search_mode: 'lexical', count: 1 });
    expect(lexical.body.results[0]).toMatchObject({ doc_id: quokka, distance: expect.any(Number) });
    // max_distance filters lexical hits by their cosine distance too, before ranking.
    const cut = lexical.body.results[0].distance - 0.001;
    expect((await search('s-mode', 'quokka', `&mode=lexical&max_distance=${cut.toFixed(6)}`)).body.count).toBe(0);
    const hybridCut = (hybrid.body.results[0].distance - 0.001).toFixed(6);
    const nearer = await search('s-mode', 'quokka camera', `&max_distance=${hybridCut}`);
    expect(nearer.body.results.map((r: any) => r.doc_id)).not.toContain(quokka);
    expect(nearer.body.results.every((r: any) => r.distance <= Number(hybridCut))).toBe(true);
    for (const answer of [hybrid, lexical]) {
      const scores = answer.body.results.map((r: any) => r.score);
      expect(scores).toEqual([...scores].sort((a, b) => b - a));
      expect(scores.every((x: number) => x >= 0 && x <= 100)).toBe(true);
    }
    expect((await search('s-mode', 'quokka', '&mode=semantic')).body.search_mode).toBe('semantic');
    expect((await search('s-mode', 'quokka', '&mode=fuzzy')).status).toBe(400);
  });

  it('the lexical index follows soft delete, restore and hard delete at once', async () => {
    const id = await addDoc('s-lexdel', 'Okapi sightings in the Ituri forest');
    await addDoc('s-lexdel', 'Forest trails close at dusk');
    const found = async () => (await search('s-lexdel', 'okapi', '&mode=lexical')).body.results.map((r: any) => r.doc_id);
    expect(await found()).toEqual([id]);
    await svc.call('DELETE', `/v1/documents/${id}?entity_id=s-lexdel`);
    expect(await found()).toEqual([]);
    await svc.call('POST', `/v1/documents/${id}/restore?entity_id=s-lexdel`);
    expect(await found()).toEqual([id]);
    await svc.call('DELETE', `/v1/documents/${id}?entity_id=s-lexdel&hard=true`);
    expect(await found()).toEqual([]);
    expect((await search('s-lexdel', 'okapi forest')).body.results).toHaveLength(1);
  });

  it('k, max_distance and modality narrow the results', async () => {
    for (const n of [1, 2, 3, 4, 5]) await addDoc('s-k', `apple orchard harvest number ${n}`);
    await addDoc('s-k', 'quantum chromodynamics lecture');
    expect((await search('s-k', 'apple orchard', '&k=2')).body.results).toHaveLength(2);
    const near = (await search('s-k', 'apple orchard harvest', '&max_distance=0.6')).body.results;
    expect(near.length).toBe(5);
    expect(near.every((r: any) => r.distance <= 0.6)).toBe(true);
    expect((await search('s-k', 'apple', '&modality=image')).body.results).toEqual([]);
    expect((await search('s-k', 'apple', '&modality=text')).body.count).toBeGreaterThan(0);
  });

  it('validates the query with 400', async () => {
    for (const extra of ['&k=0', '&k=101', '&k=1.5', '&max_distance=3', '&max_distance=-1', '&modality=video', '&include_content=yes', '&bogus=1']) {
      const res = await search('s-val', 'x', extra);
      expect(res.status, extra).toBe(400);
      expect(res.body.code).toBe('invalid_input');
    }
    expect((await svc.call('GET', '/v1/search?entity_id=s-val')).status).toBe(400);
    expect((await svc.call('GET', '/v1/search?entity_id=s-val&q=%20')).status).toBe(400);
  });

  it('never shows another owner, tenant or partition, nor records whose readers exclude the caller', async () => {
    await addDoc('s-iso-a', 'secret walrus recipe');
    await addDoc('s-iso-a', 'secret walrus recipe', '&partition=p1');
    await addDoc('s-iso-a', 'secret walrus recipe for a named reader', '&readers=someone-else');
    expect((await search('s-iso-b', 'walrus recipe')).body.count).toBe(0);
    expect((await search('s-iso-a', 'walrus recipe', '', KEYS.globex)).body.count).toBe(0);
    expect((await search('s-iso-a', 'walrus recipe')).body.count).toBe(1);
    expect((await search('s-iso-a', 'walrus recipe', '&partition=p1')).body.count).toBe(1);
    expect((await search('s-iso-a', 'walrus recipe', '&partition=p2')).body.count).toBe(0);
    for (const mode of ['lexical', 'semantic']) {
      expect((await search('s-iso-b', 'walrus recipe', `&mode=${mode}`)).body.count, mode).toBe(0);
      expect((await search('s-iso-a', 'walrus recipe', `&mode=${mode}`, KEYS.globex)).body.count, mode).toBe(0);
      expect((await search('s-iso-a', 'walrus recipe named reader', `&mode=${mode}`)).body.count, mode).toBe(1);
    }
  });

  it('POST /v1/search/embed searches by a caller vector of the index dimension', async () => {
    await addDoc('s-embed', 'a single document');
    const vector = Array.from({ length: 384 }, (_, i) => (i % 7) - 3);
    const ok = await svc.call('POST', '/v1/search/embed?entity_id=s-embed', { body: { vector, k: 5 } });
    expect(ok.status).toBe(200);
    expect(ok.body.count).toBe(1);
    const wrong = await svc.call('POST', '/v1/search/embed?entity_id=s-embed', { body: { vector: [1, 2, 3] } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toContain('384');
    expect((await svc.call('POST', '/v1/search/embed?entity_id=s-embed', { body: { vector: new Array(384).fill(0) } })).status).toBe(400);
  });

  it('POST /v1/search/batch answers each query in order, at most 32', async () => {
    await addDoc('s-batch', 'violin concerto');
    await addDoc('s-batch', 'tractor engine repair');
    const res = await svc.call('POST', '/v1/search/batch?entity_id=s-batch', { body: { queries: [{ q: 'violin', k: 1 }, { q: 'tractor engine', k: 1 }] } });
    expect(res.status).toBe(200);
    expect(res.body.results).toHaveLength(2);
    expect(res.body.results[0][0].passage).toBe('violin concerto');
    expect(res.body.results[1][0].passage).toBe('tractor engine repair');
    expect(res.body.search_modes).toEqual(['hybrid', 'hybrid']);
    const modes = await svc.call('POST', '/v1/search/batch?entity_id=s-batch', { body: { queries: [{ q: 'violin', mode: 'lexical' }, { q: 'violin', mode: 'semantic', k: 2 }] } });
    expect(modes.body.search_modes).toEqual(['lexical', 'semantic']);
    expect(modes.body.search_mode_reasons).toEqual([null, null]);
    expect(modes.body.results[0].map((r: any) => r.passage)).toEqual(['violin concerto']);
    expect(modes.body.results[1]).toHaveLength(2);
    expect((await svc.call('POST', '/v1/search/batch?entity_id=s-batch', { body: { queries: [{ q: 'violin', mode: 'exact' }] } })).status).toBe(400);
    const alias = await svc.call('POST', '/search/batch?entity_id=s-batch', { body: { queries: [{ q: 'violin', k: 1 }] } });
    expect(alias.status).toBe(200);
    expect(alias.headers.get('deprecation')).toBe('true');
    expect(alias.body.results[0][0].passage).toBe('violin concerto');
    const tooMany = await svc.call('POST', '/v1/search/batch?entity_id=s-batch', { body: { queries: Array.from({ length: 33 }, () => ({ q: 'x' })) } });
    expect(tooMany.status).toBe(400);
  });

  it('search quality on the fixture corpus: recall@10 and MRR of the default (hybrid) mode with the hashing embedder', async () => {
    const idOf = new Map<string, string>();
    for (const doc of corpus.documents) {
      const res = await svc.call('POST', '/v1/documents?entity_id=s-corpus', { body: { title: doc.title, content: doc.content } });
      idOf.set(res.body.doc_id, doc.key);
    }
    let recallSum = 0;
    let rrSum = 0;
    for (const { q, expected } of corpus.queries) {
      const keys = (await search('s-corpus', q, '&k=10')).body.results.map((r: any) => idOf.get(r.doc_id));
      recallSum += expected.filter((e) => keys.includes(e)).length / expected.length;
      const rank = keys.findIndex((k: string) => expected.includes(k));
      rrSum += rank < 0 ? 0 : 1 / (rank + 1);
    }
    const recall = recallSum / corpus.queries.length;
    const mrr = rrSum / corpus.queries.length;
    console.log(`search corpus (${corpus.documents.length} docs, ${corpus.queries.length} queries): recall@10 ${recall.toFixed(3)}, MRR ${mrr.toFixed(3)}`);
    expect(recall).toBeGreaterThanOrEqual(0.8);
    expect(mrr).toBeGreaterThanOrEqual(0.7);
  });
});
