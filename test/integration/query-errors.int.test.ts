import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';

/**
 * Every 400 `invalid_input` cause of POST /v1/query (spec table and DECISIONS.md), each with a message
 * that names the offending field (or parameter). Structured queries never answer a truncated 200.
 */
const FIELDS = [
  { name: 'priority', type: 'int', source: { metadata: 'priority' } },
  { name: 'price', type: 'float', source: { metadata: 'price' } },
  { name: 'status', type: 'string', source: { metadata: 'status' } },
  { name: 'urgent', type: 'bool', source: { metadata: 'urgent' } },
  { name: 'due', type: 'datetime', source: { metadata: 'due' } },
  { name: 'labels', type: 'string_list', source: { metadata: 'labels' } },
];

const leaf = (field: string, op: string, value: unknown) => ({ filter: { field, op, value } });

const CASES: Array<[cause: string, body: unknown, names: string]> = [
  ['unknown field in a filter', leaf('colour', 'eq', 'red'), '"colour"'],
  ['unknown field nested in and/or/not', { filter: { and: [{ field: 'status', op: 'eq', value: 'a' }, { not: { field: 'nope', op: 'exists', value: true } }] } }, '"nope"'],
  ['unknown sort field', { sort: [{ by: 'colour' }] }, '"colour"'],
  ['unknown group_by field', { group_by: ['colour'], aggregate: [{ op: 'count' }] }, '"colour"'],
  ['unknown aggregate field', { aggregate: [{ op: 'max', field: 'colour' }] }, '"colour"'],
  ['string literal on an int field', leaf('priority', 'eq', '3'), '"priority"'],
  ['float literal on an int field', leaf('priority', 'gt', 1.5), '"priority"'],
  ['number literal on a string field', leaf('status', 'eq', 3), '"status"'],
  ['string literal on a bool field', leaf('urgent', 'eq', 'true'), '"urgent"'],
  ['datetime literal without an offset', leaf('due', 'gte', '2026-01-01T00:00:00'), '"due"'],
  ['number literal on a datetime field', leaf('due', 'lt', 1700000000000), '"due"'],
  ['null literal', leaf('status', 'eq', null), '"status"'],
  ['literal of the wrong type inside in', leaf('priority', 'in', [1, 'two']), '"priority"'],
  ['empty in', leaf('priority', 'in', []), '"priority"'],
  ['in with more than 1000 literals', leaf('priority', 'in', Array.from({ length: 1001 }, (_, i) => i)), '"priority"'],
  ['between with lo > hi', leaf('price', 'between', [10, 1]), '"price"'],
  ['between that is not a pair', leaf('price', 'between', [1]), '"price"'],
  ['exists with a non-boolean', leaf('status', 'exists', 'yes'), '"status"'],
  ['range operator on a bool field', leaf('urgent', 'gt', true), '"urgent"'],
  ['prefix on an int field', leaf('priority', 'prefix', '1'), '"priority"'],
  ['eq on a string_list field', leaf('labels', 'eq', 'red'), '"labels"'],
  ['range on a string_list field', leaf('labels', 'gte', 'a'), '"labels"'],
  ['contains on a float field', leaf('price', 'contains', '1'), '"price"'],
  ['unknown operator', leaf('status', 'like', 'a%'), '"status"'],
  ['leaf without value', { filter: { field: 'status', op: 'eq' } }, '"status"'],
  ['sum over a string field', { aggregate: [{ op: 'sum', field: 'status' }] }, '"status"'],
  ['avg over a datetime field', { aggregate: [{ op: 'avg', field: 'due' }] }, '"due"'],
  ['min over a bool field', { aggregate: [{ op: 'min', field: 'urgent' }] }, '"urgent"'],
  ['numeric aggregate without a field', { aggregate: [{ op: 'sum' }] }, 'aggregate[0].field'],
  ['sort on a string_list field', { sort: [{ by: 'labels' }] }, '"labels"'],
  ['Mode B sort by something not grouped or aggregated', { group_by: ['status'], aggregate: [{ op: 'count' }], sort: [{ by: 'price' }] }, '"price"'],
  ['three group_by fields', { group_by: ['status', 'urgent', 'labels'], aggregate: [{ op: 'count' }] }, 'group_by'],
  ['group_by without aggregate', { group_by: ['status'] }, 'group_by'],
  ['duplicate aggregate output name', { aggregate: [{ op: 'count', as: 'n' }, { op: 'max', field: 'price', as: 'n' }] }, '"n"'],
  ['limit above 1000 in Mode A', { limit: 1001 }, 'limit'],
  ['limit of 0', { limit: 0 }, 'limit'],
  ['negative offset', { offset: -1 }, 'offset'],
  ['offset in Mode B', { aggregate: [{ op: 'count' }], offset: 10 }, 'offset'],
  ['filter that is not an object', { filter: [1, 2] }, 'filter'],
  ['empty and', { filter: { and: [] } }, 'filter.and'],
  ['combinator with extra keys', { filter: { and: [leaf('status', 'eq', 'a').filter], or: [] } }, 'filter'],
  ['unknown body field', { filters: {} }, 'filters'],
  ['bad sort direction', { sort: [{ by: 'price', dir: 'up' }] }, 'sort[0].dir'],
  ['unknown aggregate op', { aggregate: [{ op: 'median', field: 'price' }] }, 'aggregate[0].op'],
];

describe('POST /v1/query: every 400 invalid_input names the offending field', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService();
    expect((await svc.call('PUT', '/v1/schema/fields', { body: { fields: FIELDS } })).status).toBe(200);
    await svc.call('POST', '/v1/documents?entity_id=u1', { body: { content: 'x', metadata: { status: 'open' } } });
  });
  afterAll(async () => svc?.stop());

  it.each(CASES)('%s', async (_cause, body, names) => {
    const res = await svc.call('POST', '/v1/query', { body });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_input');
    expect(res.body.error).toContain(names);
  });
});

describe('POST /v1/query: an operator refusal lists the operators of the field\'s own type', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService();
    expect((await svc.call('PUT', '/v1/schema/fields', { body: { fields: FIELDS } })).status).toBe(200);
  });
  afterAll(async () => svc?.stop());

  it.each([
    ['priority', 'int', 'prefix', 'eq, neq, in, gt, gte, lt, lte, between, exists'],
    ['price', 'float', 'contains', 'eq, neq, in, gt, gte, lt, lte, between, exists'],
    ['due', 'datetime', 'prefix', 'eq, neq, in, gt, gte, lt, lte, between, exists'],
    ['urgent', 'bool', 'gt', 'eq, neq, in, exists'],
    ['labels', 'string_list', 'eq', 'contains, in, exists'],
  ])('%s (%s): an unknown operator and %s both list exactly: %s', async (field, type, foreignOp, ops) => {
    const unknown = await svc.call('POST', '/v1/query', { body: leaf(field, 'like', 'a%') });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toBe(`filter.op for field "${field}" (${type}) must be one of ${ops}, got "like"`);
    const foreign = await svc.call('POST', '/v1/query', { body: leaf(field, foreignOp, 'a') });
    expect(foreign.status).toBe(400);
    expect(foreign.body.error).toBe(`filter.op "${foreignOp}" does not apply to field "${field}" of type ${type} (allowed: ${ops})`);
  });
});

describe('POST /v1/query: caps (configurable) are 400 with advice, never a truncated answer', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ env: { QUERY_MAX_GROUPS: '3', QUERY_MAX_SCANNED: '5' } });
    await svc.call('PUT', '/v1/schema/fields', { body: { fields: FIELDS } });
    for (let i = 0; i < 6; i++) await svc.call('POST', `/v1/documents?entity_id=u${i}`, { body: { content: `d${i}`, metadata: { priority: i, status: i % 2 ? 'a' : 'b' } } });
  });
  afterAll(async () => svc?.stop());

  it('refuses a query whose candidates exceed the scan cap, and answers once the filter narrows it', async () => {
    const wide = await svc.call('POST', '/v1/query', { body: {} });
    expect(wide.status).toBe(400);
    expect(wide.body.code).toBe('invalid_input');
    expect(wide.body.error).toMatch(/candidate-scan cap of 5.*narrow the filter or add a partition/);
    const narrow = await svc.call('POST', '/v1/query', { body: { filter: { field: 'priority', op: 'lt', value: 5 } } });
    expect([narrow.status, narrow.body.total]).toEqual([200, 5]);
  });

  it('refuses a grouping with more groups than the cap', async () => {
    const res = await svc.call('POST', '/v1/query', { body: { filter: { field: 'priority', op: 'lt', value: 5 }, group_by: ['priority'], aggregate: [{ op: 'count' }] } });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/more than 3 groups \(the group cap\)/);
    const ok = await svc.call('POST', '/v1/query', { body: { filter: { field: 'priority', op: 'lt', value: 5 }, group_by: ['status'], aggregate: [{ op: 'count' }] } });
    expect(ok.body).toEqual({ groups: [{ keys: { status: 'a' }, aggregates: { count: 2 } }, { keys: { status: 'b' }, aggregates: { count: 3 } }], total_groups: 2, scanned: 5 });
  });

  it('refuses a Mode B limit above the group cap', async () => {
    const res = await svc.call('POST', '/v1/query', { body: { filter: { field: 'priority', op: 'lt', value: 2 }, aggregate: [{ op: 'count' }], limit: 4 } });
    expect(res.status).toBe(400);
    expect(res.body.error).toContain('limit');
  });
});
