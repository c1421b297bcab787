import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEYS, startTestService, type SocketTestService } from '../helpers/service.js';

/**
 * A JSON body whose bytes are not UTF-8 is refused with the offending byte named, and nothing is written:
 * decoded leniently, the bytes would be stored as U+FFFD, something the caller never sent.
 */
let svc: SocketTestService;
beforeAll(async () => {
  svc = await startTestService({ socket: true });
});
afterAll(async () => {
  await svc.stop();
});

const post = (path: string, body: Uint8Array) =>
  fetch(`${svc.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${KEYS.acme}`, 'content-type': 'application/json' }, body });

const bytes = (...parts: Array<string | number[]>) => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : Buffer.from(p))));

describe('request bodies that are not UTF-8', () => {
  it.each([
    ['a stray byte', bytes('{"predicate":"p","value":"a', [0xff], 'b"}'), /^request body is not valid UTF-8 \(byte 0xff at offset 27\)$/],
    ['a sequence cut short', bytes('{"predicate":"p","value":"', [0xe2, 0x28], '"}'), /^request body is not valid UTF-8 \(byte 0x28 at offset 27\)$/],
    ['an overlong encoding', bytes('{"predicate":"', [0xc0, 0xaf], '","value":1}'), /^request body is not valid UTF-8 \(byte 0xc0 at offset 14\)$/],
  ])('refuses %s with 400 naming it, and writes nothing', async (_label, body, message) => {
    const res = await post('/v1/memory/facts?entity_id=utf8', body);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: 'invalid_input', error: expect.stringMatching(message) });
    const facts = await fetch(`${svc.url}/v1/memory/facts?entity_id=utf8`, { headers: { authorization: `Bearer ${KEYS.acme}` } });
    expect(await facts.json()).toMatchObject({ count: 0 });
  });

  it('takes UTF-8 text of every width and gives it back exactly', async () => {
    const value = 'é € 😀 ü';
    const res = await post('/v1/memory/facts?entity_id=utf8-ok', bytes(`{"predicate":"p","value":"${value}"}`));
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ value });
  });

  it('still answers malformed JSON and a top-level scalar as not valid JSON', async () => {
    for (const body of ['{"predicate":', '"just a string"', '42']) {
      const res = await post('/v1/memory/facts?entity_id=utf8', bytes(body));
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error: 'request body is not valid JSON' });
    }
  });
});
