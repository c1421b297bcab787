import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEYS, startTestService, type TestService } from '../helpers/service.js';

/**
 * Keys and names users choose that are also members of JavaScript objects (`__proto__`, `constructor`,
 * `toString`): kept exactly as given where they can be stored, refused with 400 where they cannot, and
 * never lost between an acknowledgement and a read.
 */
describe('user keys that name Object prototype members', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService();
  });
  afterAll(async () => svc?.stop());

  const OBJECT_MEMBERS = { constructor: 'c', toString: 't', hasOwnProperty: 'h', valueOf: 1, prototype: true };

  it('document metadata and entity attributes keep keys such as constructor and toString exactly', async () => {
    const doc = await svc.call('POST', '/v1/documents?entity_id=u1', { body: { content: 'x', metadata: OBJECT_MEMBERS } });
    expect(doc.status).toBe(201);
    expect(doc.body.metadata).toEqual(OBJECT_MEMBERS);
    expect((await svc.call('GET', `/v1/documents/${doc.body.doc_id}?entity_id=u1`)).body.metadata).toEqual(OBJECT_MEMBERS);
    const entity = await svc.call('POST', '/v1/memory/entities?entity_id=u1', { body: { entity_type: 'person', attributes: OBJECT_MEMBERS } });
    expect(entity.status).toBe(201);
    expect((await svc.call('GET', `/v1/memory/entities/${entity.body.memory_entity_id}?entity_id=u1`)).body.attributes).toEqual(OBJECT_MEMBERS);
  });

  it('refuses a __proto__ metadata or attribute key with 400 naming where it is (records could not keep it)', async () => {
    const doc = await svc.call('POST', '/v1/documents?entity_id=u1', { rawBody: '{"content":"x","metadata":{"a":1,"__proto__":"p"}}' });
    expect(doc.status).toBe(400);
    expect(doc.body.code).toBe('invalid_input');
    expect(doc.body.error).toBe('metadata has the key "__proto__", which is reserved (it names the JavaScript prototype); rename it');
    const entity = await svc.call('POST', '/v1/memory/entities?entity_id=u1', { rawBody: '{"entity_type":"person","attributes":{"__proto__":{"admin":true}}}' });
    expect(entity.status).toBe(400);
    expect(entity.body.error).toContain('attributes has the key "__proto__"');
    // Spelled with JSON escapes, it is the same key.
    const escaped = await svc.call('POST', '/v1/memory/entities?entity_id=u1', { rawBody: '{"entity_type":"person","attributes":{"\\u005f_proto\\u005f_":{"admin":true}}}' });
    expect(escaped.status).toBe(400);
    expect(escaped.body.error).toContain('attributes has the key "__proto__"');
    expect((await svc.call('GET', '/v1/documents?entity_id=u1')).body.documents).toHaveLength(1);
  });

  it.each(['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty'])('refuses a field named %s with 400 naming the field', async (name) => {
    const res = await svc.call('PUT', '/v1/schema/fields', {
      body: { fields: [{ name: 'fine', type: 'string', source: { metadata: 'x' } }, { name, type: 'string', source: { metadata: 'constructor' } }] },
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_input');
    expect(res.body.error).toBe('fields[1].name is reserved (a member of JavaScript objects, such as __proto__ or constructor); choose another name');
    expect((await svc.call('GET', '/v1/schema/fields')).body.fields).toEqual([]);
  });

  it('a field reads a metadata key named constructor, and groups by values such as __proto__ and constructor like any other', async () => {
    const put = await svc.call('PUT', '/v1/schema/fields', { key: KEYS.globex, body: { fields: [{ name: 'kind', type: 'string', source: { metadata: 'constructor' } }] } });
    expect(put.status).toBe(200);
    for (const kind of ['__proto__', 'constructor', 'constructor', 'toString', 'plain']) {
      expect((await svc.call('POST', '/v1/documents?entity_id=u2', { key: KEYS.globex, body: { content: kind, metadata: { constructor: kind } } })).status).toBe(201);
    }
    const docs = await svc.call('POST', '/v1/query', { key: KEYS.globex, body: { filter: { field: 'kind', op: 'eq', value: '__proto__' } } });
    expect(docs.body.documents.map((d: { fields: unknown }) => d.fields)).toEqual([{ kind: '__proto__' }]);
    const groups = await svc.call('POST', '/v1/query', {
      key: KEYS.globex,
      body: { filter: { field: 'entity_id', op: 'eq', value: 'u2' }, group_by: ['kind'], aggregate: [{ op: 'count', as: '__proto__' }, { op: 'count_distinct', field: 'doc_id', as: 'constructor' }] },
    });
    expect(groups.status).toBe(200);
    expect(groups.body.groups).toEqual([
      { keys: { kind: '__proto__' }, aggregates: { ['__proto__']: 1, constructor: 1 } },
      { keys: { kind: 'constructor' }, aggregates: { ['__proto__']: 2, constructor: 2 } },
      { keys: { kind: 'plain' }, aggregates: { ['__proto__']: 1, constructor: 1 } },
      { keys: { kind: 'toString' }, aggregates: { ['__proto__']: 1, constructor: 1 } },
    ]);
  });
});
