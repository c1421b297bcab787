import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEYS, startTestService, type SocketTestService } from '../helpers/service.js';

// A real socket: requests Node's HTTP parser refuses never reach the Koa app, so only a listening
// server shows what a client receives.
let svc: SocketTestService;
beforeAll(async () => {
  svc = await startTestService({ socket: true });
});
afterAll(async () => {
  await svc.stop();
});

const HUGE_HEADER = { 'x-padding': 'x'.repeat(20_000) };

function expectContractBody(status: number, headers: Headers, text: string, code: string): void {
  expect(headers.get('content-type')).toMatch(/^application\/json/);
  const body = JSON.parse(text);
  expect(body).toEqual({ error: expect.any(String), code, request_id: expect.any(String) });
  expect(headers.get('x-request-id')).toBe(body.request_id);
  expect(headers.get('connection')).toBe('close');
  expect(status).toBeGreaterThanOrEqual(400);
}

/**
 * A POST over a bare socket that keeps sending its body whatever comes back, as curl does (node's own
 * client stops writing once it has an answer); it settles when the connection has closed, with what was
 * read and the socket error if there was one (a reset).
 */
function postRaw(path: string, bodyBytes: number): Promise<{ raw: string; socketError?: string }> {
  const { hostname, port } = new URL(svc.url);
  return new Promise((resolve) => {
    const got: { raw: string; socketError?: string } = { raw: '' };
    const socket = connect(Number(port), hostname, () => {
      const head = [`POST ${path} HTTP/1.1`, `Host: ${hostname}:${port}`, `Authorization: Bearer ${KEYS.acme}`, 'Content-Type: application/json', `Content-Length: ${bodyBytes}`, `X-Padding: ${HUGE_HEADER['x-padding']}`];
      socket.write(`${head.join('\r\n')}\r\n\r\n`);
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      let sent = 0;
      const pump = (): void => {
        while (sent < bodyBytes && socket.writable) {
          sent += chunk.length;
          if (!socket.write(chunk)) return void socket.once('drain', pump);
        }
      };
      pump();
    });
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (got.raw += chunk));
    socket.on('end', () => socket.end());
    socket.on('error', (err: NodeJS.ErrnoException) => (got.socketError ??= err.code ?? err.message));
    socket.on('close', () => resolve(got));
  });
}

/** Status, headers and body of a raw HTTP/1.1 answer. */
function parseRaw(raw: string): { status: number; headers: Headers; body: string } {
  const [head = '', body = ''] = raw.split('\r\n\r\n');
  const [statusLine = '', ...fields] = head.split('\r\n');
  const headers = new Headers(fields.map((f) => f.split(/:\s*/, 2) as [string, string]));
  return { status: Number(statusLine.split(' ')[1]), headers, body };
}

describe('requests the HTTP parser refuses get the error contract', () => {
  it('a GET whose headers exceed 16 KB: 431 payload_too_large with the error body and X-Request-Id', async () => {
    const res = await fetch(`${svc.url}/v1/memory/facts?entity_id=u`, { headers: { ...HUGE_HEADER, authorization: `Bearer ${KEYS.acme}` } });
    const text = await res.text();
    expect(res.status).toBe(431);
    expectContractBody(res.status, res.headers, text, 'payload_too_large');
    expect(JSON.parse(text).error).toContain('headers exceed 16384 bytes');
  });

  it('a POST with a body and headers over 16 KB: the client reads the 431, not a reset', async () => {
    const res = await fetch(`${svc.url}/v1/memory/facts?entity_id=u`, {
      method: 'POST',
      headers: { ...HUGE_HEADER, authorization: `Bearer ${KEYS.acme}`, 'content-type': 'application/json' },
      body: JSON.stringify({ predicate: 'p', value: 'v'.repeat(100_000) }),
    });
    expect(res.status).toBe(431);
    expectContractBody(res.status, res.headers, await res.text(), 'payload_too_large');
  });

  it('a streamed 4 MiB upload with headers over 16 KB: the client reads the 431', async () => {
    const { raw, socketError } = await postRaw('/v1/documents?entity_id=u', 4 * 1024 * 1024);
    const res = parseRaw(raw);
    expect({ status: res.status, socketError }).toEqual({ status: 431, socketError: undefined });
    expectContractBody(res.status, res.headers, res.body, 'payload_too_large');
  });

  it('bytes that are not HTTP: 400 invalid_input with the error body', async () => {
    const { hostname, port } = new URL(svc.url);
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), hostname, () => socket.write('NOT HTTP AT ALL\r\n\r\n'));
      let text = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => (text += chunk));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    expect(raw).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    const res = parseRaw(raw);
    expectContractBody(res.status, res.headers, res.body, 'invalid_input');
  });

  it('the service keeps answering after them', async () => {
    expect((await svc.call('GET', '/v1/memory/facts?entity_id=u')).status).toBe(200);
  });
});
