import { afterAll, describe, expect, it } from 'vitest';
import { fillOwner, ownerKeys, ownerQuery, readOwner } from '../helpers/erase.js';
import { until } from '../helpers/reembed.js';
import { KEYS, startTestService, type TestService } from '../helpers/service.js';

// A node with TEMPORAL_ENABLED=false (the test service's default) runs no workflows: it erases in process.
describe('erasing an owner on a node without Temporal', () => {
  let svc: TestService | null = null;

  afterAll(async () => {
    await svc?.stop();
  });

  it('completes the erasure in process, leaving nothing of the owner and its neighbour as it was', async () => {
    svc = await startTestService();
    const call = svc.call;
    const { docIds } = await fillOwner(call, KEYS.acme, 'gone');
    const kept = await fillOwner(call, KEYS.acme, 'kept');
    const before = await readOwner(call, KEYS.acme, 'kept', kept.docIds);

    const answer = await call('DELETE', `/v1/memory?${ownerQuery('gone')}`);
    expect(answer.status).toBe(202);
    const id = (answer.body as { receipt_id: string }).receipt_id;
    const receipt = await until(
      () => call('GET', `/v1/memory/erasures/${id}`),
      (res) => (res.body as { state: string }).state !== 'pending' && (res.body as { state: string }).state !== 'running',
    );
    expect(receipt.body).toMatchObject({ receipt_id: id, state: 'complete', counts: { documents: docIds.length } });
    expect(JSON.stringify(receipt.body)).not.toContain('gone');

    expect(ownerKeys(svc.deps.store, { tenant: 'acme', partition: null, entityId: 'gone' })).toEqual([]);
    const after = await readOwner(call, KEYS.acme, 'gone', docIds);
    expect(after.entities).toMatchObject({ status: 200, body: { entities: [] } });
    for (const doc of docIds) expect(after[`doc ${doc}`]).toMatchObject({ status: 404 });
    expect(await readOwner(call, KEYS.acme, 'kept', kept.docIds)).toEqual(before);
    // A new, empty owner that takes writes again.
    expect((await call('POST', `/v1/memory/entities?${ownerQuery('gone')}`, { body: { entity_type: 'person' } })).status).toBe(201);
  });
});
