import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => {
  await svc?.stop();
});

const batch = (entity: string, body: unknown) => svc.call('POST', `/v1/documents/batch?entity_id=${entity}`, { body });
const listed = async (entity: string) => (await svc.call('GET', `/v1/documents?entity_id=${entity}&limit=200`)).body.count as number;

describe('POST /v1/documents/batch', () => {
  it('stores every document in order in one write, each searchable at once with its own passages', async () => {
    const documents = [
      { content: 'The kestrel hovers over the motorway verge.', title: 'Birds', tags: ['nature'] },
      { content: 'Invoice 4471 is due on the first of March.', metadata: { amount: 120 } },
      { content: 'The ferry to the island leaves at noon.', content_type: 'text/markdown', source: 'import' },
    ];
    const res = await batch('b-ok', { documents });
    expect(res.status).toBe(201);
    expect(res.body.count).toBe(3);
    expect(res.body.documents.map((d: any) => d.content)).toEqual(documents.map((d) => d.content));
    expect(res.body.documents[0]).toMatchObject({ title: 'Birds', tags: ['nature'], entity_id: 'b-ok', modality: 'text', content_type: 'text/plain' });
    expect(res.body.documents[2]).toMatchObject({ content_type: 'text/markdown', source: 'import' });
    const ids = res.body.documents.map((d: any) => d.doc_id);
    expect(new Set(ids).size).toBe(3);
    for (const [q, i] of [['kestrel', 0], ['invoice 4471', 1], ['ferry island', 2]] as const) {
      for (const mode of ['lexical', 'semantic', 'hybrid']) {
        const hit = (await svc.call('GET', `/v1/search?entity_id=b-ok&q=${encodeURIComponent(q)}&k=1&mode=${mode}`)).body.results[0];
        expect(hit, `${q} ${mode}`).toMatchObject({ doc_id: ids[i], passage: expect.stringContaining(documents[i]!.content) });
      }
    }
    expect(await listed('b-ok')).toBe(3);
  });

  it('gives each document its own readers', async () => {
    const res = await batch('b-readers', { documents: [{ content: 'open walrus note' }, { content: 'private walrus note', readers: ['someone-else'] }] });
    expect(res.status).toBe(201);
    const seen = (await svc.call('GET', '/v1/search?entity_id=b-readers&q=walrus%20note')).body.results.map((r: any) => r.doc_id);
    expect(seen).toEqual([res.body.documents[0].doc_id]);
  });

  it('refuses a bad item with 400 naming it, and keeps none of the batch', async () => {
    await batch('b-bad', { documents: [{ content: 'already here' }] });
    const cases: Array<[unknown, RegExp]> = [
      [{ documents: [{ content: 'fine' }, { title: 'no content' }] }, /documents\[1\]\.content/],
      [{ documents: [{ content: 'fine' }, { content: 'x', tags: 'not-a-list' }] }, /documents\[1\]\.tags/],
      [{ documents: [{ content: 'fine' }, { content: 'x', readers: [] }] }, /documents\[1\]\.readers/],
      [{ documents: [{ content: 'fine', bogus: 1 }] }, /documents\[0\] has unknown field bogus/],
      [{ documents: [] }, /documents must not be empty/],
      [{ documents: Array.from({ length: 101 }, () => ({ content: 'x' })) }, /at most 100/],
      [{}, /documents/],
    ];
    for (const [body, message] of cases) {
      const res = await batch('b-bad', body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(res.body).toMatchObject({ code: 'invalid_input', error: expect.stringMatching(message) });
    }
    const big = await batch('b-bad', { documents: [{ content: 'fine' }, { content: 'x' }, { content: 'y'.repeat(1024 * 1024 + 1) }] });
    expect(big.status).toBe(413);
    expect(big.body.error).toContain('documents[2].content must be at most');
    expect(await listed('b-bad')).toBe(1);
  });
});
