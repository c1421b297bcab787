import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEYS, startTestService, type TestService } from '../helpers/service.js';

/** PUT/GET/DELETE /v1/schema/fields over real HTTP: envelopes, upsert, scoping and validation. */
describe('field schema routes', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService();
  });
  afterAll(async () => svc?.stop());

  const put = (fields: unknown[], key: string = KEYS.acme, qs = '') => svc.call('PUT', `/v1/schema/fields${qs}`, { key, body: { fields } });

  it('upserts by name and returns the whole declared set; GET lists it with coverage, mismatch_count and backfill', async () => {
    const a = await put([{ name: 'a', type: 'string', source: { metadata: 'a' } }]);
    expect(a.status).toBe(200);
    const b = await put([{ name: 'b', type: 'int', source: { regex: 'n=(\\d+)' } }]);
    expect(b.body.fields.map((f: { name: string }) => f.name)).toEqual(['a', 'b']);
    const again = await put([{ name: 'a', type: 'float', source: { metadata: 'x' } }]);
    expect(again.body.fields[0]).toEqual({ name: 'a', type: 'float', source: { metadata: 'x' }, partition_scope: null, coverage: 0, mismatch_count: 0, backfill: 'complete' });
    const list = await svc.call('GET', '/v1/schema/fields');
    expect(list.body).toEqual(again.body);
    expect((await svc.call('GET', '/v1/schema/fields', { key: KEYS.globex })).body).toEqual({ fields: [] });
  });

  it('scopes fields to a partition: multi-tenant keys must name one, partition_scope must agree with it', async () => {
    expect((await put([{ name: 'k', type: 'string', source: { metadata: 'k' } }], KEYS.platform)).status).toBe(400);
    const p = await put([{ name: 'k', type: 'string', source: { metadata: 'k' } }], KEYS.platform, '?partition=east');
    expect(p.body.fields).toEqual([{ name: 'k', type: 'string', source: { metadata: 'k' }, partition_scope: 'east', coverage: 0, mismatch_count: 0, backfill: 'complete' }]);
    expect((await svc.call('GET', '/v1/schema/fields?partition=west', { key: KEYS.platform })).body.fields).toEqual([]);
    const clash = await put([{ name: 'k', type: 'string', source: { metadata: 'k' }, partition_scope: 'west' }], KEYS.platform, '?partition=east');
    expect(clash.status).toBe(400);
    expect(clash.body.error).toContain('fields[0].partition_scope');
    expect((await svc.call('DELETE', '/v1/schema/fields/k?partition=west', { key: KEYS.platform })).status).toBe(404);
    const del = await svc.call('DELETE', '/v1/schema/fields/k?partition=east', { key: KEYS.platform });
    expect(del.body).toEqual({ fields: [] });
  });

  it.each([
    ['a built-in name', [{ name: 'created_at', type: 'datetime', source: { metadata: 'c' } }], 'fields[0].name'],
    ['a malformed name', [{ name: '9lives', type: 'int', source: { metadata: 'c' } }], 'fields[0].name'],
    ['an unknown type', [{ name: 'x', type: 'number', source: { metadata: 'c' } }], 'fields[0].type'],
    ['an invalid regex', [{ name: 'x', type: 'int', source: { regex: '(unclosed' } }], 'fields[0].source.regex is not a pattern the RE2 engine accepts: missing closing )'],
    ['a backreference', [{ name: 'ok', type: 'int', source: { metadata: 'a' } }, { name: 'x', type: 'string', source: { regex: '(a)\\1' } }], 'fields[1].source.regex is not a pattern the RE2 engine accepts: backreferences'],
    ['a lookahead', [{ name: 'x', type: 'string', source: { regex: 'INV-(?=\\d)(\\w+)' } }], 'fields[0].source.regex is not a pattern the RE2 engine accepts: lookahead'],
    ['a lookbehind', [{ name: 'x', type: 'string', source: { regex: '(?<=\\$)\\d+' } }], 'fields[0].source.regex is not a pattern the RE2 engine accepts: lookbehind'],
    ['a pattern that compiles too large', [{ name: 'x', type: 'string', source: { regex: '(\\w{1,1000})!' } }], 'fields[0].source.regex is not a pattern the RE2 engine accepts: compiles to 2004 RE2 instructions'],
    ['a reserved name', [{ name: '__proto__', type: 'string', source: { metadata: 'a' } }], 'fields[0].name is reserved'],
    ['a source with both keys', [{ name: 'x', type: 'int', source: { metadata: 'a', regex: 'b' } }], 'fields[0].source'],
    ['an empty metadata key', [{ name: 'x', type: 'int', source: { metadata: '' } }], 'fields[0].source'],
    ['a name declared twice', [{ name: 'x', type: 'int', source: { metadata: 'a' } }, { name: 'x', type: 'int', source: { metadata: 'b' } }], 'fields[1].name "x"'],
    ['an unknown key', [{ name: 'x', type: 'int', source: { metadata: 'a' }, indexed: true }], 'indexed'],
  ])('refuses %s with 400 naming the field, and changes nothing', async (_what, fields, names) => {
    const before = (await svc.call('GET', '/v1/schema/fields')).body;
    const res = await put(fields);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_input');
    expect(res.body.error).toContain(names);
    expect((await svc.call('GET', '/v1/schema/fields')).body).toEqual(before);
  });

  it('re-declaring a field as it is changes nothing, even with documents to backfill and no job engine', async () => {
    const field = { name: 'same', type: 'int', source: { regex: 'n=(\\d+)' } };
    const first = await put([field], KEYS.globex);
    expect(first.status).toBe(200);
    for (const n of [1, 2, 'x']) expect((await svc.call('POST', '/v1/documents?entity_id=u1', { key: KEYS.globex, body: { content: `n=${n}` } })).status).toBe(201);
    const before = (await svc.call('GET', '/v1/schema/fields', { key: KEYS.globex })).body;
    expect(before.fields).toEqual([{ ...field, partition_scope: null, coverage: 2, mismatch_count: 0, backfill: 'complete' }]);
    // Apps declare their schema at every boot: the same definition needs no backfill, so no job engine.
    const again = await put([field], KEYS.globex);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(before);
    // A changed definition does need one, and this service runs without Temporal.
    const changed = await put([{ ...field, type: 'string' }], KEYS.globex);
    expect(changed.status).toBe(503);
    expect((await svc.call('GET', '/v1/schema/fields', { key: KEYS.globex })).body).toEqual(before);
  });

  it('DELETE of a field that is not declared is 404 saying so', async () => {
    const res = await svc.call('DELETE', '/v1/schema/fields/nothing');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: 'not_found', error: 'field "nothing" is not declared tenant-wide' });
    const scoped = await svc.call('DELETE', '/v1/schema/fields/nothing?partition=east', { key: KEYS.platform });
    expect(scoped.body.error).toBe('field "nothing" is not declared in partition "east"');
  });

  it('refuses an empty fields array and a malformed name in the DELETE path', async () => {
    expect((await svc.call('PUT', '/v1/schema/fields', { body: { fields: [] } })).status).toBe(400);
    const del = await svc.call('DELETE', '/v1/schema/fields/bad%20name');
    expect(del.status).toBe(400);
    expect(del.body.error).toContain('name');
  });

  it('answers under the deprecated unversioned alias too', async () => {
    const res = await svc.call('GET', '/schema/fields');
    expect(res.status).toBe(200);
    expect(res.headers.get('deprecation')).toBe('true');
  });
});
