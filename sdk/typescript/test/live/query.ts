import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { InvalidInputError, NotFoundError } from '@engram-memory/sdk';
import { client, live, ownerId } from './harness.js';

describe('field schema and structured query through the SDK', () => {
  const engram = client();

  test('declare a field, wait for its backfill, Mode A across pages of 4, Mode B groups typed, remove it', async () => {
    const id = ownerId('query');
    const owner = engram.owner(id);
    await owner.documents.createMany(Array.from({ length: 15 }, (_, i) => ({ content: `order ${i}`, metadata: { ts_shelf: i % 3 === 0 ? 'top' : 'bottom', ts_weight: i } })));
    const declared = await engram.schema.declare([
      { name: 'ts_shelf', type: 'string', source: { metadata: 'ts_shelf' } },
      { name: 'ts_weight', type: 'int', source: { metadata: 'ts_weight' } },
    ]);
    assert.ok(declared.some((f) => f.name === 'ts_shelf'));
    const fields = await engram.schema.waitForBackfill(['ts_shelf', 'ts_weight']);
    assert.ok(fields.find((f) => f.name === 'ts_weight')!.coverage >= 15);

    const onlyOwner = { field: 'entity_id', op: 'eq', value: id } as const;
    const page = await engram.query({ filter: onlyOwner, limit: 4, sort: [{ by: 'ts_weight', dir: 'asc' }] });
    assert.equal(page.total, 15);
    assert.equal(page.has_more, true);
    const weights: unknown[] = [];
    for await (const doc of engram.queryIterate({ filter: onlyOwner, limit: 4, sort: [{ by: 'ts_weight', dir: 'asc' }] })) weights.push(doc.fields.ts_weight);
    assert.deepEqual(weights, Array.from({ length: 15 }, (_, i) => i), 'four pages, in order, none twice');

    const grouped = await engram.query({ filter: onlyOwner, group_by: ['ts_shelf'], aggregate: [{ op: 'count', as: 'n' }, { op: 'sum', field: 'ts_weight', as: 'total' }], sort: [{ by: 'ts_shelf' }] });
    assert.equal(grouped.total_groups, 2);
    assert.equal(grouped.scanned, 15);
    assert.deepEqual(grouped.groups.map((g) => [g.keys.ts_shelf, g.aggregates.n, g.aggregates.total]), [['bottom', 10, 75], ['top', 5, 30]]);

    await assert.rejects(engram.query({ filter: { field: 'no_such_field', op: 'eq', value: 1 } }), (error: unknown) => {
      assert.ok(error instanceof InvalidInputError);
      assert.match(error.message, /no_such_field/);
      return true;
    });
    const remaining = await engram.schema.remove('ts_weight');
    assert.ok(!remaining.some((f) => f.name === 'ts_weight'));
    await engram.schema.remove('ts_shelf');
  });

  test('a partition handle scopes the schema, queries, erasures and its owners to the partition', async () => {
    const platform = client({ apiKey: live.multiKey });
    await assert.rejects(platform.schema.list(), InvalidInputError, 'a multi-tenant key must name a partition');
    const clinic = platform.partition('clinic-a');
    const other = platform.partition('clinic-b');
    const patient = clinic.owner(ownerId('patient'));
    assert.equal(patient.partition, 'clinic-a');
    await patient.documents.create({ content: 'blood pressure normal', metadata: { ts_ward: 'north' } });
    await clinic.schema.declare([{ name: 'ts_ward', type: 'string', source: { metadata: 'ts_ward' } }]);
    assert.deepEqual((await clinic.schema.list()).map((f) => [f.name, f.partition_scope]), [['ts_ward', 'clinic-a']]);
    assert.deepEqual(await other.schema.list(), []);
    await clinic.schema.waitForBackfill(['ts_ward']);
    const found = await clinic.query({ filter: { field: 'ts_ward', op: 'eq', value: 'north' } });
    assert.equal(found.total, 1);
    assert.equal(found.documents[0]?.partition, 'clinic-a');
    await assert.rejects(other.query({ filter: { field: 'ts_ward', op: 'eq', value: 'north' } }), InvalidInputError, 'the field is not declared in clinic-b');
    assert.equal((await other.owner(patient.id).documents.list()).count, 0);
    const receipt = await patient.erase();
    await assert.rejects(other.erasure(receipt.receipt_id), NotFoundError);
    assert.equal((await clinic.erasure(receipt.receipt_id)).receipt_id, receipt.receipt_id);
  });
});
