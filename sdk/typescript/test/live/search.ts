import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { client, ownerId } from './harness.js';

describe('search through the SDK', () => {
  const engram = client();

  test('search with every parameter, recall, search by vector, batch search', async () => {
    const owner = engram.owner(ownerId('search'));
    const kite = await owner.documents.create({ content: 'The red kite circled above the hills all afternoon.', metadata: { topic: 'birds' } });
    await owner.documents.create({ content: 'Quarterly revenue grew by twelve percent.', metadata: { topic: 'finance' } });

    const results = await owner.search('kite above hills', { k: 5, max_distance: 2, include_content: true, modality: 'text', mode: 'hybrid' });
    assert.equal(results.search_mode, 'hybrid');
    assert.equal(results.results[0]?.doc_id, kite.doc_id);
    assert.equal(results.results[0]?.content, kite.content);
    const lexical = await owner.search('revenue', { mode: 'lexical', k: 1 });
    assert.equal(lexical.search_mode, 'lexical');
    assert.equal(lexical.count, 1);

    const hits = await owner.recall('a bird of prey over the hills');
    assert.equal(hits[0]?.doc_id, kite.doc_id);
    assert.ok(hits.every((h) => h.score >= 0 && h.score <= 100));

    const status = await engram.status();
    const dimension = Number(/-(\d+)$/.exec(status.embedder?.id ?? '')?.[1] ?? 384);
    const vector = Array.from({ length: dimension }, (_, i) => (i % 7) / 7);
    const byVector = await owner.searchByVector(vector, { k: 2 });
    assert.equal(byVector.count, 2);

    const batch = await owner.searchBatch([{ q: 'kite', k: 1 }, { q: 'revenue', k: 1, mode: 'lexical' }]);
    assert.equal(batch.results.length, 2);
    assert.equal(batch.results[0]?.[0]?.doc_id, kite.doc_id);
    assert.equal(batch.search_modes[1], 'lexical');
  });
});
