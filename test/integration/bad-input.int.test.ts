import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEYS, startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
let factId: string;
beforeAll(async () => {
  svc = await startTestService({ env: { JSON_BODY_LIMIT_BYTES: String(64 * 1024) } });
  await svc.call('POST', '/v1/memory/entities?entity_id=u', { body: { entity_type: 'person', memory_entity_id: 'ann' } });
  await svc.call('POST', '/v1/memory/entities?entity_id=u', { body: { entity_type: 'org', memory_entity_id: 'acme' } });
  await svc.call('POST', '/v1/memory/relationships?entity_id=u', { body: { from_entity_id: 'ann', to_entity_id: 'acme', relationship_type: 'works_at', relationship_id: 'job' } });
  factId = (await svc.call('POST', '/v1/memory/facts?entity_id=u', { body: { predicate: 'color', value: 'red' } })).body.fact_id;
});
afterAll(async () => {
  await svc.stop();
});

/** Every key of the store with its value, to prove a refused request changed nothing. */
function snapshot(): string {
  const out: string[] = [];
  for (const { key, value } of svc.deps.store.records.getRange()) out.push(JSON.stringify([key, value]));
  for (const key of svc.deps.store.index.getKeys()) out.push(JSON.stringify(key));
  return out.join('\n');
}

type Case = [label: string, method: string, path: string, body: unknown, status: number, code: string, message?: RegExp];
const fact = (extra: object) => ({ predicate: 'p', value: 1, ...extra });
const big = 'x'.repeat(70 * 1024);

const cases: Case[] = [
  // bodies that are not JSON objects
  ['malformed JSON', 'POST', '/v1/memory/facts?entity_id=u', '{"predicate":', 400, 'invalid_input', /not valid JSON/],
  ['JSON array body', 'POST', '/v1/memory/facts?entity_id=u', '[]', 400, 'invalid_input'],
  ['JSON string body', 'POST', '/v1/memory/facts?entity_id=u', '"hello"', 400, 'invalid_input'],
  ['JSON null body', 'POST', '/v1/memory/facts?entity_id=u', 'null', 400, 'invalid_input'],
  ['empty body', 'POST', '/v1/memory/facts?entity_id=u', '', 400, 'invalid_input', /required/],
  ['oversized body', 'POST', '/v1/memory/facts?entity_id=u', { predicate: 'p', value: big }, 413, 'payload_too_large'],
  // facts: types, scalars, keys
  ['fact value object', 'POST', '/v1/memory/facts?entity_id=u', fact({ value: { a: 1 } }), 400, 'invalid_input', /value must be scalar: got object/],
  ['fact value array', 'POST', '/v1/memory/facts?entity_id=u', fact({ value: [1] }), 400, 'invalid_input', /value must be scalar: got array/],
  ['fact value missing', 'POST', '/v1/memory/facts?entity_id=u', { predicate: 'p' }, 400, 'invalid_input', /value is required/],
  ['predicate missing', 'POST', '/v1/memory/facts?entity_id=u', { value: 1 }, 400, 'invalid_input', /predicate is required/],
  ['predicate not a string', 'POST', '/v1/memory/facts?entity_id=u', fact({ predicate: 7 }), 400, 'invalid_input', /predicate must be string/],
  ['predicate empty', 'POST', '/v1/memory/facts?entity_id=u', fact({ predicate: '' }), 400, 'invalid_input', /predicate/],
  ['unknown body field', 'POST', '/v1/memory/facts?entity_id=u', fact({ colour: 'x' }), 400, 'invalid_input', /colour/],
  ['bad subject_type', 'POST', '/v1/memory/facts?entity_id=u', fact({ subject_type: 'user' }), 400, 'invalid_input', /subject_type/],
  ['entity subject without id', 'POST', '/v1/memory/facts?entity_id=u', fact({ subject_type: 'entity' }), 400, 'invalid_input', /subject_id/],
  ['owner subject with id', 'POST', '/v1/memory/facts?entity_id=u', fact({ subject_type: 'owner', subject_id: 'ann' }), 400, 'invalid_input', /subject_id/],
  ['bad cardinality', 'POST', '/v1/memory/facts?entity_id=u', fact({ cardinality: 'many' }), 400, 'invalid_input', /cardinality/],
  ['timestamp without offset', 'POST', '/v1/memory/facts?entity_id=u', fact({ observed_at: '2026-01-01T00:00:00' }), 400, 'invalid_input', /observed_at/],
  ['date-only timestamp', 'POST', '/v1/memory/facts?entity_id=u', fact({ valid_from: '2026-01-01' }), 400, 'invalid_input', /valid_from/],
  ['impossible date', 'POST', '/v1/memory/facts?entity_id=u', fact({ observed_at: '2026-02-30T00:00:00Z' }), 400, 'invalid_input', /observed_at/],
  ['observed_at before year 0000 once its offset is applied', 'POST', '/v1/memory/facts?entity_id=u', fact({ observed_at: '0000-01-01T00:00:00+23:59' }), 400, 'invalid_input', /^observed_at must fall in years 0000 to 9999 once its offset is applied/],
  ['valid_from after year 9999 once its offset is applied', 'POST', '/v1/memory/facts?entity_id=u', fact({ valid_from: '9999-12-31T23:59:59-23:59' }), 400, 'invalid_input', /^valid_from must fall in years 0000 to 9999/],
  ['numeric timestamp', 'POST', '/v1/memory/facts?entity_id=u', fact({ observed_at: 1700000000 }), 400, 'invalid_input', /observed_at/],
  ['malformed supersedes id', 'POST', '/v1/memory/facts?entity_id=u', fact({ supersedes_fact_id: 'bad id' }), 400, 'invalid_input', /supersedes_fact_id/],
  ['unknown supersedes id', 'POST', '/v1/memory/facts?entity_id=u', fact({ supersedes_fact_id: 'fact_nope' }), 400, 'invalid_input', /supersedes_fact_id/],
  ['malformed subject id', 'POST', '/v1/memory/facts?entity_id=u', fact({ subject_type: 'entity', subject_id: '../ann' }), 400, 'invalid_input', /subject_id/],
  // entities and relationships
  ['entity_type missing', 'POST', '/v1/memory/entities?entity_id=u', { display_name: 'x' }, 400, 'invalid_input', /entity_type/],
  ['nested attribute', 'POST', '/v1/memory/entities?entity_id=u', { entity_type: 't', attributes: { a: { b: 1 } } }, 400, 'invalid_input', /attributes.a must be scalar: got object/],
  ['array attribute', 'POST', '/v1/memory/entities?entity_id=u', { entity_type: 't', attributes: { a: [1] } }, 400, 'invalid_input', /attributes.a must be scalar: got array/],
  ['attributes not an object', 'POST', '/v1/memory/entities?entity_id=u', { entity_type: 't', attributes: 'x' }, 400, 'invalid_input', /attributes/],
  ['aliases not strings', 'POST', '/v1/memory/entities?entity_id=u', { entity_type: 't', aliases: [1] }, 400, 'invalid_input', /aliases\[0\]/],
  ['malformed memory_entity_id', 'POST', '/v1/memory/entities?entity_id=u', { entity_type: 't', memory_entity_id: 'a b' }, 400, 'invalid_input', /memory_entity_id/],
  ['relationship missing type', 'POST', '/v1/memory/relationships?entity_id=u', { from_entity_id: 'ann', to_entity_id: 'acme' }, 400, 'invalid_input', /relationship_type/],
  ['relationship nested attribute', 'POST', '/v1/memory/relationships?entity_id=u', { from_entity_id: 'ann', to_entity_id: 'acme', relationship_type: 'r', attributes: { x: {} } }, 400, 'invalid_input', /attributes.x/],
  ['relationship valid_from before year 0000', 'POST', '/v1/memory/relationships?entity_id=u', { from_entity_id: 'ann', to_entity_id: 'acme', relationship_type: 'r', valid_from: '0000-01-01T00:00:00+00:01' }, 400, 'invalid_input', /^valid_from must fall in years 0000 to 9999/],
  ['relationship bad valid_from', 'POST', '/v1/memory/relationships?entity_id=u', { from_entity_id: 'ann', to_entity_id: 'acme', relationship_type: 'r', valid_from: 'soon' }, 400, 'invalid_input', /valid_from/],
  ['relationship endpoint change', 'POST', '/v1/memory/relationships?entity_id=u', { from_entity_id: 'acme', to_entity_id: 'ann', relationship_type: 'works_at', relationship_id: 'job' }, 400, 'invalid_input', /immutable/],
  // query strings
  ['entity_id missing', 'GET', '/v1/memory/facts', undefined, 400, 'invalid_input', /entity_id is required/],
  ['entity_id empty', 'GET', '/v1/memory/facts?entity_id=', undefined, 400, 'invalid_input', /entity_id/],
  ['entity_id too long', 'GET', `/v1/memory/facts?entity_id=${'a'.repeat(257)}`, undefined, 400, 'invalid_input', /entity_id must be at most 256/],
  ['entity_id repeated', 'GET', '/v1/memory/facts?entity_id=a&entity_id=b', undefined, 400, 'invalid_input', /entity_id must be given once/],
  ['empty partition', 'GET', '/v1/memory/facts?entity_id=u&partition=', undefined, 400, 'invalid_input', /partition/],
  ['unknown query parameter', 'GET', '/v1/memory/facts?entity_id=u&limt=5', undefined, 400, 'invalid_input', /limt/],
  ['limit zero', 'GET', '/v1/memory/facts?entity_id=u&limit=0', undefined, 400, 'invalid_input', /limit/],
  ['limit above 1000', 'GET', '/v1/memory/facts?entity_id=u&limit=1001', undefined, 400, 'invalid_input', /limit must be at most 1000/],
  ['limit not a number', 'GET', '/v1/memory/facts?entity_id=u&limit=ten', undefined, 400, 'invalid_input', /limit/],
  ['include_inactive not boolean', 'GET', '/v1/memory/facts?entity_id=u&include_inactive=yes', undefined, 400, 'invalid_input', /include_inactive/],
  ['as_of malformed', 'GET', '/v1/memory/facts?entity_id=u&as_of=2026-01-01', undefined, 400, 'invalid_input', /as_of/],
  ['history without predicate', 'GET', '/v1/memory/facts?entity_id=u&history=true&subject_type=owner', undefined, 400, 'invalid_input', /history/],
  ['subject_id without subject_type', 'GET', '/v1/memory/facts?entity_id=u&subject_id=ann', undefined, 400, 'invalid_input', /subject_id/],
  ['as_of after year 9999 once its offset is applied', 'GET', '/v1/memory/facts?entity_id=u&as_of=9999-12-31T23:59:59-23:59', undefined, 400, 'invalid_input', /^query parameter as_of must fall in years 0000 to 9999/],
  ['relationships as_of malformed', 'GET', '/v1/memory/relationships?entity_id=u&as_of=now', undefined, 400, 'invalid_input', /as_of/],
  ['relationships bad from id', 'GET', '/v1/memory/relationships?entity_id=u&from_entity_id=%2Fetc', undefined, 400, 'invalid_input', /from_entity_id/],
  ['entities bad limit', 'GET', '/v1/memory/entities?entity_id=u&limit=-1', undefined, 400, 'invalid_input', /limit/],
  ['malformed path id', 'DELETE', '/v1/memory/facts/bad%20id?entity_id=u', undefined, 400, 'invalid_input', /id/],
  ['delete without owner', 'DELETE', '/v1/memory/relationships/job', undefined, 400, 'invalid_input', /entity_id/],
  ['unknown entity', 'GET', '/v1/memory/entities/ghost?entity_id=u', undefined, 404, 'not_found'],
];

describe('malformed requests are refused with the error body and change nothing', () => {
  it('has at least 40 cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(40);
  });

  it.each(cases)('%s', async (_label, method, path, body, status, code, message) => {
    const before = snapshot();
    const res = await svc.call(method, path, typeof body === 'string' ? { rawBody: body } : body === undefined ? {} : { body });
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ error: expect.any(String), code, request_id: res.headers.get('x-request-id') });
    if (message) expect(res.body.error).toMatch(message);
    expect(snapshot()).toBe(before);
  });

  it('a wrong content type is refused', async () => {
    const res = await svc.call('POST', '/v1/memory/facts?entity_id=u', { rawBody: 'predicate=p', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/Content-Type: application\/json/);
  });

  it('the fact asserted before the bad requests is still the only active one', async () => {
    const res = await svc.call('GET', '/v1/memory/facts?entity_id=u', { key: KEYS.acme });
    expect(res.body.facts.map((f: any) => f.fact_id)).toEqual([factId]);
  });
});
