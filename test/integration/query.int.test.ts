import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEYS, startTestService, type TestService } from '../helpers/service.js';

/** Field schema and structured queries over the real HTTP server, real LMDB and real documents. */
describe('field schema and POST /v1/query', () => {
  let svc: TestService;
  const ids: Record<string, string> = {};

  const addDoc = async (name: string, body: Record<string, unknown>, query = 'entity_id=u1', key: string = KEYS.acme) => {
    const res = await svc.call('POST', `/v1/documents?${query}`, { body: { content: `doc ${name}`, ...body }, key });
    expect(res.status).toBe(201);
    ids[name] = res.body.doc_id;
    return res.body;
  };
  const query = async (body: unknown, key: string = KEYS.acme, qs = '') => {
    const res = await svc.call('POST', `/v1/query${qs}`, { body, key });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body;
  };
  const idsOf = (page: { documents: Array<{ doc_id: string }> }) => page.documents.map((d) => Object.keys(ids).find((k) => ids[k] === d.doc_id));

  beforeAll(async () => {
    svc = await startTestService();
    const put = await svc.call('PUT', '/v1/schema/fields', {
      body: {
        fields: [
          { name: 'priority', type: 'int', source: { metadata: 'priority' } },
          { name: 'price', type: 'float', source: { metadata: 'price' } },
          { name: 'status', type: 'string', source: { metadata: 'status' } },
          { name: 'urgent', type: 'bool', source: { metadata: 'urgent' } },
          { name: 'due', type: 'datetime', source: { metadata: 'due' } },
          { name: 'labels', type: 'string_list', source: { metadata: 'labels' } },
          { name: 'ticket', type: 'int', source: { regex: 'ticket #(\\d+)' } },
        ],
      },
    });
    expect(put.status).toBe(200);
    expect(put.body.fields.map((f: { backfill: string }) => f.backfill)).toEqual(Array(7).fill('complete'));
    await addDoc('a', { metadata: { priority: 3, price: 9.5, status: 'open', urgent: true, due: '2026-12-01T00:00:00Z', labels: 'red,blue' }, content: 'see ticket #42' });
    await addDoc('b', { metadata: { priority: '1', price: 20, status: 'closed', urgent: 'false', labels: 'blue' } });
    await addDoc('c', { metadata: { priority: 'high', price: 5, status: 'open', due: '2027-01-15T12:00:00+02:00' }, tags: ['x'] });
    await addDoc('d', { metadata: { priority: 2, status: 'Open' } }, 'entity_id=u2');
    await addDoc('e', { metadata: { priority: 5, price: 1.25, status: 'open' } }, 'entity_id=u2&readers=someone-else');
  });
  afterAll(async () => svc?.stop());

  it('reports coverage and mismatch_count per field, and document records carry their field values', async () => {
    const res = await svc.call('GET', '/v1/schema/fields');
    const priority = res.body.fields.find((f: { name: string }) => f.name === 'priority');
    expect(priority).toEqual({ name: 'priority', type: 'int', source: { metadata: 'priority' }, partition_scope: null, coverage: 4, mismatch_count: 1, backfill: 'complete' });
    const doc = await svc.call('GET', `/v1/documents/${ids.a}?entity_id=u1`);
    expect(doc.body.fields).toEqual({ priority: 3, price: 9.5, status: 'open', urgent: true, due: '2026-12-01T00:00:00.000Z', labels: ['red', 'blue'], ticket: 42 });
  });

  it('Mode A filters, sorts with missing values last, pages with an exact total, and hides unreadable documents', async () => {
    const page1 = await query({ filter: { field: 'status', op: 'in', value: ['open', 'Open'] }, sort: [{ by: 'priority', dir: 'desc' }], limit: 2 });
    expect(idsOf(page1)).toEqual(['a', 'd']);
    expect(page1.total).toBe(3);
    expect(page1.has_more).toBe(true);
    const page2 = await query({ filter: { field: 'status', op: 'in', value: ['open', 'Open'] }, sort: [{ by: 'priority', dir: 'desc' }], limit: 2, offset: 2 });
    expect(idsOf(page2)).toEqual(['c']);
    expect(page2.has_more).toBe(false);
    expect(page2.documents[0].fields).toEqual({ price: 5, status: 'open', due: '2027-01-15T10:00:00.000Z' });
  });

  it('neq matches documents without the field, exists and not are complements within scope', async () => {
    expect(idsOf(await query({ filter: { field: 'urgent', op: 'neq', value: true }, sort: [{ by: 'doc_id' }] })).sort()).toEqual(['b', 'c', 'd']);
    expect(idsOf(await query({ filter: { field: 'due', op: 'exists', value: false } })).sort()).toEqual(['b', 'd']);
    expect(idsOf(await query({ filter: { not: { field: 'labels', op: 'contains', value: 'blue' } } })).sort()).toEqual(['c', 'd']);
    expect(idsOf(await query({ filter: { and: [{ field: 'price', op: 'between', value: [5, 10] }, { field: 'entity_id', op: 'eq', value: 'u1' }] } })).sort()).toEqual(['a', 'c']);
    expect(idsOf(await query({ filter: { field: 'ticket', op: 'gte', value: 40 } }))).toEqual(['a']);
    expect(idsOf(await query({ filter: { field: 'due', op: 'gt', value: '2026-12-31T23:00:00-01:00' } }))).toEqual(['c']);
  });

  it('Mode B groups with count, sum (int stays integer), avg, min, max and count_distinct', async () => {
    const res = await query({
      group_by: ['status'],
      aggregate: [{ op: 'count' }, { op: 'sum', field: 'priority' }, { op: 'avg', field: 'price' }, { op: 'max', field: 'due' }, { op: 'count_distinct', field: 'entity_id', as: 'owners' }],
      sort: [{ by: 'count', dir: 'desc' }],
    });
    expect(res).toEqual({
      groups: [
        { keys: { status: 'open' }, aggregates: { count: 2, sum_priority: 3, avg_price: 7.25, max_due: '2027-01-15T10:00:00.000Z', owners: 1 } },
        { keys: { status: 'Open' }, aggregates: { count: 1, sum_priority: 2, avg_price: null, max_due: null, owners: 1 } },
        { keys: { status: 'closed' }, aggregates: { count: 1, sum_priority: 1, avg_price: 20, max_due: null, owners: 1 } },
      ],
      total_groups: 3,
      scanned: 4,
    });
    const lists = await query({ group_by: ['labels', 'urgent'], aggregate: [{ op: 'count' }] });
    expect(lists.groups).toEqual([
      { keys: { labels: 'blue', urgent: false }, aggregates: { count: 1 } },
      { keys: { labels: 'blue', urgent: true }, aggregates: { count: 1 } },
      { keys: { labels: 'red', urgent: true }, aggregates: { count: 1 } },
      { keys: { labels: null, urgent: null }, aggregates: { count: 2 } },
    ]);
  });

  it('soft delete hides a document from queries and coverage, restore brings it back, hard delete removes it', async () => {
    const count = async () => (await query({ filter: { field: 'status', op: 'eq', value: 'open' } })).total;
    const coverage = async () => (await svc.call('GET', '/v1/schema/fields')).body.fields.find((f: { name: string }) => f.name === 'status').coverage;
    expect([await count(), await coverage()]).toEqual([2, 5]);
    // A record's `fields` are what the indexes hold: none while it is soft-deleted, all again once restored.
    const deleted = await svc.call('DELETE', `/v1/documents/${ids.a}?entity_id=u1`);
    expect([deleted.status, deleted.body.fields]).toEqual([200, {}]);
    expect([await count(), await coverage()]).toEqual([1, 4]);
    const restored = await svc.call('POST', `/v1/documents/${ids.a}/restore?entity_id=u1`);
    expect([restored.status, restored.body.fields.ticket]).toEqual([200, 42]);
    expect([await count(), await coverage()]).toEqual([2, 5]);
    const b = await addDoc('f', { metadata: { status: 'open', priority: 'x' } });
    expect([await count(), await coverage()]).toEqual([3, 6]);
    expect((await svc.call('DELETE', `/v1/documents/${b.doc_id}?entity_id=u1&hard=true`)).status).toBe(204);
    expect([await count(), await coverage()]).toEqual([2, 5]);
    const priority = (await svc.call('GET', '/v1/schema/fields')).body.fields.find((f: { name: string }) => f.name === 'priority');
    expect([priority.coverage, priority.mismatch_count]).toEqual([4, 1]);
  });

  it('is tenant-wide: other tenants see nothing, partitions narrow, multi-tenant keys must name one', async () => {
    expect((await query({}, KEYS.globex)).total).toBe(0);
    expect((await svc.call('POST', '/v1/query', { body: {}, key: KEYS.platform })).status).toBe(400);
    const scoped = await svc.call('PUT', '/v1/schema/fields?partition=p1', { key: KEYS.platform, body: { fields: [{ name: 'kind', type: 'string', source: { metadata: 'kind' } }] } });
    expect(scoped.body.fields).toEqual([{ name: 'kind', type: 'string', source: { metadata: 'kind' }, partition_scope: 'p1', coverage: 0, mismatch_count: 0, backfill: 'complete' }]);
    await addDoc('p1a', { metadata: { kind: 'x' } }, 'entity_id=u1&partition=p1', KEYS.platform);
    await addDoc('p2a', { metadata: { kind: 'x' } }, 'entity_id=u1&partition=p2', KEYS.platform);
    expect(idsOf(await query({ filter: { field: 'kind', op: 'eq', value: 'x' } }, KEYS.platform, '?partition=p1'))).toEqual(['p1a']);
    const p2 = await svc.call('POST', '/v1/query?partition=p2', { key: KEYS.platform, body: { filter: { field: 'kind', op: 'eq', value: 'x' } } });
    expect(p2.status).toBe(400);
    expect(p2.body.error).toContain('"kind"');
    expect((await query({ partition: 'p2' }, KEYS.platform)).total).toBe(1);
  });

  it('deletes a field (404 when not declared) and re-declaring without documents completes at once', async () => {
    const del = await svc.call('DELETE', '/v1/schema/fields/ticket');
    expect(del.status).toBe(200);
    expect(del.body.fields.map((f: { name: string }) => f.name)).not.toContain('ticket');
    expect((await svc.call('DELETE', '/v1/schema/fields/ticket')).status).toBe(404);
    const bad = await svc.call('POST', '/v1/query', { body: { filter: { field: 'ticket', op: 'exists', value: true } } });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('invalid_input');
  });

  it('answers 503 when declaring over existing documents needs a backfill and Temporal is disabled, and changes nothing', async () => {
    const res = await svc.call('PUT', '/v1/schema/fields', { body: { fields: [{ name: 'newfield', type: 'string', source: { metadata: 'status' } }] } });
    expect(res.status).toBe(503);
    expect(res.body.code).toBe('unavailable');
    const list = await svc.call('GET', '/v1/schema/fields');
    expect(list.body.fields.map((f: { name: string }) => f.name)).not.toContain('newfield');
  });
});
