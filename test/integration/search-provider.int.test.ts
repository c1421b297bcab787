import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';

/**
 * EMBEDDINGS_URL: documents and queries are embedded by an OpenAI-compatible provider (a loopback stub
 * that maps a few keywords to axes of an 8-dimensional space).
 */
const AXES = ['cat', 'dog', 'car', 'boat', 'rain', 'sun', 'tea', 'code'];
function vectorOf(text: string): number[] {
  const lower = text.toLowerCase();
  return AXES.map((word) => (lower.includes(word) ? 1 : 0.01));
}

let stub: Server;
let svc: TestService;
const requests: Array<{ model: string; input: string[] }> = [];

beforeAll(async () => {
  stub = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const parsed = JSON.parse(body) as { model: string; input: string[] };
      requests.push(parsed);
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ object: 'list', data: parsed.input.map((t, index) => ({ object: 'embedding', index, embedding: vectorOf(t) })) }));
    });
  });
  await new Promise<void>((r) => stub.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(stub.address() as AddressInfo).port}/v1`;
  svc = await startTestService({ env: { EMBEDDINGS_URL: url, EMBEDDINGS_MODEL: 'stub-embed', EMBEDDINGS_DIMENSIONS: '8' } });
});
afterAll(async () => {
  await svc?.stop();
  await new Promise((r) => stub.close(r));
});

describe('search with an OpenAI-compatible embeddings provider', () => {
  it('embeds documents and queries through the provider, and search/embed takes its dimension', async () => {
    const cat = (await svc.call('POST', '/v1/documents?entity_id=prov', { body: { content: 'The cat sleeps all day.' } })).body.doc_id;
    await svc.call('POST', '/v1/documents?entity_id=prov', { body: { content: 'Writing code in the rain.' } });
    expect(requests.some((r) => r.model === 'stub-embed' && r.input.includes('The cat sleeps all day.'))).toBe(true);

    const hits = await svc.call('GET', '/v1/search?entity_id=prov&q=cat&k=1&mode=semantic');
    expect(hits.body.results[0].doc_id).toBe(cat);
    expect(hits.body.results[0].score).toBeGreaterThan(90);

    const byVector = await svc.call('POST', '/v1/search/embed?entity_id=prov', { body: { vector: vectorOf('rain code'), k: 1 } });
    expect(byVector.status).toBe(200);
    expect(byVector.body.results[0].passage).toBe('Writing code in the rain.');
    const wrong = await svc.call('POST', '/v1/search/embed?entity_id=prov', { body: { vector: new Array(384).fill(0.1) } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toContain('8');
  });
});
