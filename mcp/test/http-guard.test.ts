/**
 * The HTTP transport's safety: its own bearer token, Host and Origin checks (DNS rebinding), the owner fixed
 * per session by a header, and a refusal to start without a token.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { request } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { call, connectHttp, engram, MAIN, ok, ownerId, serverEnv, startHttp, TOKEN, type HttpServer } from './harness.js';

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
};

interface RawAnswer { status: number; headers: Record<string, string | string[] | undefined>; body: string }

/** A POST of an initialize request with exactly these headers (node:http, so that Host can be forged). */
function postInitialize(url: string, headers: Record<string, string>): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(JSON.stringify(INITIALIZE));
  });
}

/** The message of a refusal's JSON-RPC error body. */
function messageOf(answer: RawAnswer): string {
  return (JSON.parse(answer.body) as { error: { message: string } }).error.message;
}

const auth = { authorization: `Bearer ${TOKEN}` };

describe('the HTTP transport', () => {
  const owner = ownerId('http-default');
  let server: HttpServer;
  before(async () => {
    server = await startHttp({ ENGRAM_OWNER: owner, ENGRAM_MCP_ALLOWED_ORIGINS: 'http://localhost:5173' });
  });
  after(async () => {
    await server.stop();
  });

  test('binds 127.0.0.1 by default', () => {
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  });

  test('without the bearer token: 401 with WWW-Authenticate, and the MCP client cannot connect', async () => {
    const answer = await postInitialize(server.url, { 'x-engram-owner': 'x' });
    assert.equal(answer.status, 401);
    assert.equal(answer.headers['www-authenticate'], 'Bearer');
    assert.match(messageOf(answer), /missing bearer token/);
    assert.equal((await postInitialize(server.url, { authorization: 'Bearer not-the-token-at-all' })).status, 401);
    await assert.rejects(connectHttp(server.url, { authorization: 'Bearer wrong-token-0123456789' }), /401|invalid bearer token/);
  });

  test('an Origin that is not allowed: 403, with or without the token', async () => {
    for (const headers of [{ origin: 'http://evil.example' }, { ...auth, origin: 'http://evil.example' }, { ...auth, origin: 'null' }]) {
      const answer = await postInitialize(server.url, headers);
      assert.equal(answer.status, 403);
      assert.match(messageOf(answer), /Origin .* is not allowed/);
    }
  });

  test('a Host that is not a loopback name (DNS rebinding): 403', async () => {
    const answer = await postInitialize(server.url, { ...auth, host: `rebound.example:${new URL(server.url).port}` });
    assert.equal(answer.status, 403);
    assert.match(messageOf(answer), /^Host rebound.example:\d+ is not allowed/);
  });

  test('an allowed Origin gets through, with CORS headers that expose the session id', async () => {
    const answer = await postInitialize(server.url, { ...auth, origin: 'http://localhost:5173' });
    assert.equal(answer.status, 200);
    assert.equal(answer.headers['access-control-allow-origin'], 'http://localhost:5173');
    assert.match(String(answer.headers['access-control-expose-headers']), /Mcp-Session-Id/);
    assert.ok(answer.headers['mcp-session-id']);
  });

  test('without X-Engram-Owner the session uses ENGRAM_OWNER; with it, the header\'s owner', async () => {
    const byDefault = await connectHttp(server.url);
    const other = ownerId('http-header');
    const byHeader = await connectHttp(server.url, { 'x-engram-owner': other });
    try {
      ok(await call(byDefault.client, 'remember_fact', { predicate: 'session', value: 'default' }));
      ok(await call(byHeader.client, 'remember_fact', { predicate: 'session', value: 'header' }));
      assert.deepEqual((await engram.owner(owner).facts.list({ predicate: 'session' })).facts.map((f) => f.value), ['default']);
      assert.deepEqual((await engram.owner(other).facts.list({ predicate: 'session' })).facts.map((f) => f.value), ['header']);
    } finally {
      await byDefault.close();
      await byHeader.close();
    }
  });

  test('a malformed owner header is refused at initialization', async () => {
    const answer = await postInitialize(server.url, { ...auth, 'x-engram-owner': 'o'.repeat(257) });
    assert.equal(answer.status, 400);
    assert.match(messageOf(answer), /x-engram-owner must be at most 256 characters/);
  });
});

describe('an HTTP server without ENGRAM_OWNER', () => {
  let server: HttpServer;
  before(async () => {
    server = await startHttp();
  });
  after(async () => {
    await server.stop();
  });

  test('refuses a session whose host names no owner', async () => {
    const answer = await postInitialize(server.url, auth);
    assert.equal(answer.status, 400);
    assert.match(messageOf(answer), /no owner: send the x-engram-owner header/);
  });
});

test('the HTTP transport does not start without ENGRAM_MCP_TOKEN', () => {
  const run = spawnSync(process.execPath, [MAIN, '--http'], { env: serverEnv({ ENGRAM_MCP_PORT: '0' }), encoding: 'utf8', timeout: 10_000 });
  assert.equal(run.status, 2);
  assert.match(run.stderr, /ENGRAM_MCP_TOKEN is required with --http/);
});
