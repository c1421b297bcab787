import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConflictError } from '@engram-memory/sdk';
import { client, ownerId } from './harness.js';

describe('writes that may be retried', () => {
  test('the same write sent twice with one key is applied once and replayed; another body with that key is 409', async () => {
    const replays: (string | null)[] = [];
    const engram = client({ hooks: { onResponse: (info) => void replays.push(info.headers.get('idempotent-replayed')) } });
    const owner = engram.owner(ownerId('idem'));
    const first = await owner.facts.assert({ predicate: 'tea', value: 'green', cardinality: 'multi' }, { idempotencyKey: 'order-17-tea' });
    const again = await owner.facts.assert({ predicate: 'tea', value: 'green', cardinality: 'multi' }, { idempotencyKey: 'order-17-tea' });
    assert.equal(again.fact_id, first.fact_id);
    assert.deepEqual(replays, [null, 'true']);
    assert.equal((await owner.facts.list({ predicate: 'tea' })).count, 1);
    await assert.rejects(owner.facts.assert({ predicate: 'tea', value: 'black', cardinality: 'multi' }, { idempotencyKey: 'order-17-tea' }), ConflictError);
  });

  test('a write whose answer is lost is retried with the same key and applied once', async () => {
    let lost = 0;
    const keys: (string | null)[] = [];
    const engram = client({
      retryBaseDelayMs: 10,
      hooks: { onRequest: (info) => void keys.push(info.idempotencyKey) },
      // The request reaches the service; its answer is dropped on the way back, as a broken connection would.
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        if (lost++ === 0) {
          await response.body?.cancel();
          throw new TypeError('fetch failed: socket hang up');
        }
        return response;
      },
    });
    const owner = engram.owner(ownerId('lost'));
    const doc = await owner.documents.create({ content: 'written once, whatever the network did' });
    assert.equal(keys.length, 2);
    assert.equal(keys[0], keys[1]);
    assert.match(keys[0] ?? '', /^[0-9a-f-]{36}$/);
    const list = await client().owner(owner.id).documents.list();
    assert.deepEqual(list.documents.map((d) => d.doc_id), [doc.doc_id]);
  });
});
