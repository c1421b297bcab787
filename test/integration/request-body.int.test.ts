import { request, type IncomingMessage } from 'node:http';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEYS, startTestService, type SocketTestService } from '../helpers/service.js';

// Bodies over a real socket (chunked, compressed, declared larger than they are sent), with a small
// body limit: how the service reads a request body (src/http/request-body.ts).
const LIMIT = 1024;
let svc: SocketTestService;
beforeAll(async () => {
  svc = await startTestService({ socket: true, env: { JSON_BODY_LIMIT_BYTES: String(LIMIT) } });
});
afterAll(async () => {
  await svc.stop();
});

const factsOf = (owner: string) => `/v1/memory/facts?entity_id=${owner}`;

/** A POST of the facts route whose body the caller writes (`send`); resolves with the answer. */
function post(owner: string, headers: Record<string, string>, send: (req: ReturnType<typeof request>) => void): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request(`${svc.url}${factsOf(owner)}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEYS.acme}`, 'content-type': 'application/json', ...headers },
    });
    req.on('error', reject);
    req.on('response', (res: IncomingMessage) => {
      let text = '';
      res.on('data', (chunk) => (text += String(chunk)));
      res.on('end', () => {
        // A body refused before it was sent whole is never finished: hang up, as a client given a 413 does.
        req.destroy();
        resolve({ status: res.statusCode!, body: JSON.parse(text) as Record<string, unknown> });
      });
    });
    send(req);
  });
}

async function factCount(owner: string): Promise<number> {
  return (await svc.call('GET', factsOf(owner))).body.count as number;
}

describe('a request body', () => {
  it('sent in chunks without a Content-Length is read whole', async () => {
    const body = JSON.stringify({ predicate: 'city', value: 'Lisbon', subject_type: 'owner' });
    const res = await post('chunked', {}, (req) => {
      req.write(body.slice(0, 10));
      setTimeout(() => {
        req.write(body.slice(10, 30));
        setTimeout(() => req.end(body.slice(30)), 20);
      }, 20);
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ predicate: 'city', value: 'Lisbon' });
    expect(await factCount('chunked')).toBe(1);
  });

  it('sent in chunks past the limit is refused with 413, nothing of it is stored, and the service goes on', async () => {
    const res = await post('too-long', {}, (req) => {
      req.write(`{"predicate":"city","subject_type":"owner","value":"`);
      const pump = (left: number) => {
        if (left === 0) return void req.end('"}');
        // The answer may come (and the socket close) before every chunk is written.
        if (!req.destroyed) req.write('x'.repeat(256), () => pump(left - 1));
      };
      pump(8);
    });
    expect(res.status).toBe(413);
    expect(res.body.code).toBe('payload_too_large');
    expect(await factCount('too-long')).toBe(0);
    expect((await svc.call('POST', factsOf('too-long'), { body: { predicate: 'city', value: 'Porto', subject_type: 'owner' } })).status).toBe(201);
  });

  it('declared past the limit by Content-Length is refused with 413 before it is sent', async () => {
    // Only the headers go out: the answer comes without a byte of the body.
    const res = await post('declared', { 'content-length': String(LIMIT + 1) }, (req) => req.flushHeaders());
    expect(res.status).toBe(413);
    expect(res.body.code).toBe('payload_too_large');
    expect(await factCount('declared')).toBe(0);
  });

  it('compressed (Content-Encoding: gzip) is inflated and read as JSON', async () => {
    const gzipped = gzipSync(JSON.stringify({ predicate: 'city', value: 'Faro', subject_type: 'owner' }));
    const res = await post('gzipped', { 'content-encoding': 'gzip', 'content-length': String(gzipped.length) }, (req) => req.end(gzipped));
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ predicate: 'city', value: 'Faro' });
  });
});
