import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';

/**
 * Text that is not well-formed Unicode (a lone surrogate) has no UTF-8 form, so the store would keep
 * U+FFFD where the caller sent something else: it is refused wherever text enters, and well-formed text,
 * astral characters included, comes back exactly, also after a restart.
 */
const dataDir = mkdtempSync(join(tmpdir(), 'engram-well-formed-'));
let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ dataDir });
});
afterAll(async () => {
  await svc.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const png = readFileSync(new URL('../fixtures/media/image.png', import.meta.url)).toString('base64');
const image = (extra: object) => ({ modality: 'image', content_type: 'image/png', data_base64: png, caption: 'a picture', ...extra });
const owner = 'surrogates';
const q = `entity_id=${owner}`;
/** `\udfff` and `\ud800` as JSON escapes: JSON.stringify writes a lone surrogate so, and JSON.parse reads it back. */
const LONE_LOW = 'x\udfffy';
const LONE_HIGH = '\ud800';

type Case = [label: string, method: string, path: string, body: unknown, message: RegExp];
const cases: Case[] = [
  ['entity display_name', 'POST', `/v1/memory/entities?${q}`, { entity_type: 'person', display_name: LONE_LOW },
    /^display_name contains a lone surrogate \(U\+DFFF at index 1\); text must be well-formed Unicode$/],
  ['entity attribute key', 'POST', `/v1/memory/entities?${q}`, { entity_type: 'person', attributes: { [`k${LONE_HIGH}`]: 1 } },
    /^attributes has a key "k\\ud800" with a lone surrogate \(U\+D800 at index 1\)/],
  ['entity alias', 'POST', `/v1/memory/entities?${q}`, { entity_type: 'person', aliases: ['ok', LONE_HIGH] }, /^aliases\[1\] contains a lone surrogate \(U\+D800 at index 0\)/],
  ['fact value', 'POST', `/v1/memory/facts?${q}`, { predicate: 'p', value: LONE_LOW }, /^value contains a lone surrogate/],
  ['fact predicate', 'POST', `/v1/memory/facts?${q}`, { predicate: `a${LONE_HIGH}b`, value: 1 }, /^predicate contains a lone surrogate \(U\+D800 at index 1\)/],
  ['document content', 'POST', `/v1/documents?${q}`, { content: `hello ${LONE_LOW}` }, /^content contains a lone surrogate \(U\+DFFF at index 7\)/],
  ['document metadata key', 'POST', `/v1/documents?${q}`, { content: 'c', metadata: { [LONE_HIGH]: 'v' } }, /^metadata has a key "\\ud800" with a lone surrogate/],
  ['document metadata value', 'POST', `/v1/documents?${q}`, { content: 'c', metadata: { k: LONE_LOW } }, /^metadata\.k contains a lone surrogate/],
  ['batch document title', 'POST', `/v1/documents/batch?${q}`, { documents: [{ content: 'a' }, { content: 'b', title: LONE_LOW }] }, /^documents\[1\]\.title contains a lone surrogate/],
  ['unknown field named with a lone surrogate', 'POST', `/v1/memory/facts?${q}`, { predicate: 'p', value: 1, [LONE_HIGH]: 2 }, /^body has a key "\\ud800" with a lone surrogate/],
  ['media filename', 'POST', `/v1/memory/media?${q}`, image({ filename: `${LONE_HIGH}.png` }), /^filename contains a lone surrogate/],
  ['media caption', 'POST', `/v1/memory/media?${q}`, image({ caption: LONE_LOW }), /^caption contains a lone surrogate/],
  ['field schema source', 'PUT', '/v1/schema/fields', { fields: [{ name: 'f', type: 'string', source: { metadata: LONE_LOW } }] }, /^fields\[0\]\.source\.metadata contains a lone surrogate/],
  // In a URL a lone surrogate can only be sent as percent-escapes that are not UTF-8 (its WTF-8 bytes).
  ['search q', 'GET', `/v1/search?${q}&q=x%ED%BF%BFy`, undefined, /^query parameter q is not UTF-8 once percent-decoded .*text must be well-formed Unicode$/],
  ['entity_id query parameter', 'GET', `/v1/memory/facts?entity_id=u%ED%A0%80`, undefined, /^query parameter entity_id is not UTF-8/],
  ['readers query parameter', 'POST', `/v1/documents?${q}&readers=a,%ED%BF%BF`, { content: 'c' }, /^query parameter readers is not UTF-8/],
  ['query parameter name', 'GET', `/v1/memory/facts?${q}&%ED%BF%BF=1`, undefined, /^a query parameter name is not UTF-8/],
  ['id in a path', 'GET', `/v1/memory/entities/e%ED%BF%BF?${q}`, undefined, /^path parameter id is not UTF-8 once percent-decoded/],
  ['document id in a path', 'GET', `/v1/documents/d%ED%A0%80?${q}`, undefined, /^path parameter doc_id is not UTF-8/],
];

describe('text that is not well-formed Unicode is refused wherever it enters', () => {
  it.each(cases)('%s', async (_label, method, path, body, message) => {
    const res = await svc.call(method, path, body === undefined ? {} : { body });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: expect.any(String), code: 'invalid_input', request_id: res.headers.get('x-request-id') });
    expect(res.body.error).toMatch(message);
  });

  it('stored nothing for the refused requests', async () => {
    expect((await svc.call('GET', `/v1/memory/entities?${q}`)).body.count).toBe(0);
    expect((await svc.call('GET', `/v1/memory/facts?${q}&include_inactive=true`)).body.count).toBe(0);
    expect((await svc.call('GET', `/v1/documents?${q}&include_deleted=true`)).body.count).toBe(0);
    expect((await svc.call('GET', '/v1/schema/fields')).body.fields).toEqual([]);
  });

  it('still decodes well-formed escapes: an emoji in q and a literal % in a value', async () => {
    const search = await svc.call('GET', `/v1/search?${q}&q=%F0%9F%A6%84%20unicorn`);
    expect(search.status).toBe(200);
    const entity = await svc.call('POST', `/v1/memory/entities?entity_id=${encodeURIComponent('100% 🦄')}`, { body: { entity_type: 'person' } });
    expect(entity.status).toBe(201);
    expect(entity.body.entity_id).toBe('100% 🦄');
  });
});

describe('well-formed text, astral characters included, round-trips exactly', () => {
  const astral = 'Zoë 😀 𝄞 𠜎 \u{10FFFF} 👩🏽‍💻';
  const roundTripOwner = `astral-${astral}`;
  const rq = `entity_id=${encodeURIComponent(roundTripOwner)}`;

  it('through entities, facts and documents, before and after a restart on the same DATA_DIR', async () => {
    const entity = await svc.call('POST', `/v1/memory/entities?${rq}`, {
      body: { entity_type: 'person', display_name: astral, aliases: [astral], attributes: { [astral]: astral } },
    });
    expect(entity.status).toBe(201);
    const fact = await svc.call('POST', `/v1/memory/facts?${rq}`, { body: { predicate: astral, value: astral } });
    expect(fact.status).toBe(201);
    const doc = await svc.call('POST', `/v1/documents?${rq}`, { body: { content: astral, title: astral, metadata: { [astral]: astral }, tags: [astral] } });
    expect(doc.status).toBe(201);

    const read = async (on: TestService) => ({
      entity: (await on.call('GET', `/v1/memory/entities/${entity.body.memory_entity_id}?${rq}`)).body,
      facts: (await on.call('GET', `/v1/memory/facts?${rq}`)).body.facts,
      doc: (await on.call('GET', `/v1/documents/${doc.body.doc_id}?${rq}`)).body,
    });
    const expectExact = (seen: Awaited<ReturnType<typeof read>>) => {
      expect(seen.entity).toMatchObject({ entity_id: roundTripOwner, display_name: astral, aliases: [astral], attributes: { [astral]: astral } });
      expect(seen.facts).toEqual([expect.objectContaining({ entity_id: roundTripOwner, predicate: astral, value: astral })]);
      expect(seen.doc).toMatchObject({ entity_id: roundTripOwner, content: astral, title: astral, metadata: { [astral]: astral }, tags: [astral] });
    };
    expectExact(await read(svc));

    await svc.stop();
    svc = await startTestService({ dataDir });
    expectExact(await read(svc));
  });
});
