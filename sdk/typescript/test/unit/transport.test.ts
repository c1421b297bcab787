import assert from 'node:assert/strict';
import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { ConflictError, Engram, RateLimitedError, type RetryInfo, UnavailableError } from '@engram-memory/sdk';

/** A real HTTP server on the loopback that answers from a script, one answer per request. */
async function scripted(answers: ((req: IncomingMessage, res: ServerResponse) => void)[]) {
  const seen: IncomingMessage[] = [];
  const server = createServer((req, res) => {
    seen.push(req);
    (answers[seen.length - 1] ?? answers[answers.length - 1]!)(req, res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { baseUrl: `http://127.0.0.1:${port}`, seen, close: () => new Promise((r) => server.close(r)) };
}

const error = (status: number, code: string, headers: Record<string, string> = {}) => (_req: IncomingMessage, res: ServerResponse) => {
  res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': `req_${status}`, ...headers });
  res.end(JSON.stringify({ error: code, code, request_id: `req_${status}` }));
};
const ok = (_req: IncomingMessage, res: ServerResponse) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ fields: [] }));
};

test('503 and 502 are retried with backoff; the answer after them is returned; the key and agent are sent', async () => {
  const server = await scripted([error(503, 'unavailable'), error(502, 'provider_error'), ok]);
  const retries: RetryInfo[] = [];
  try {
    const engram = new Engram({ baseUrl: server.baseUrl, apiKey: 'sk_test', retryBaseDelayMs: 5, hooks: { onRetry: (r) => void retries.push(r) } });
    assert.deepEqual(await engram.schema.list(), []);
    assert.deepEqual(retries.map((r) => r.status), [503, 502]);
    assert.equal(server.seen[0]?.headers.authorization, 'Bearer sk_test');
    assert.equal(server.seen[0]?.headers['user-agent'], 'engram-sdk-typescript/0.1.0');
  } finally {
    await server.close();
  }
});

test('the retry budget is spent, then the last error is thrown; maxRetries 0 sends once', async () => {
  const server = await scripted([error(503, 'unavailable')]);
  try {
    const engram = new Engram({ baseUrl: server.baseUrl, apiKey: 'sk_test', retryBaseDelayMs: 1, maxRetries: 2 });
    await assert.rejects(engram.schema.list(), UnavailableError);
    assert.equal(server.seen.length, 3);
    await assert.rejects(engram.schema.list({ maxRetries: 0 }), UnavailableError);
    assert.equal(server.seen.length, 4);
  } finally {
    await server.close();
  }
});

test('a Retry-After longer than maxRetryDelayMs is not waited for: RateLimited at once, with retryAfter', async () => {
  const server = await scripted([error(429, 'rate_limited', { 'retry-after': '120' })]);
  try {
    const engram = new Engram({ baseUrl: server.baseUrl, apiKey: 'sk_test', maxRetryDelayMs: 5_000 });
    const thrown = await engram.schema.list().catch((e: unknown) => e);
    assert.ok(thrown instanceof RateLimitedError);
    assert.equal(thrown.retryAfter, 120);
    assert.equal(server.seen.length, 1);
  } finally {
    await server.close();
  }
});

test('writes carry one Idempotency-Key across retries, a fresh one per call; reads carry none', async () => {
  const created = (_req: IncomingMessage, res: ServerResponse) => {
    res.writeHead(201, { 'content-type': 'application/json' });
    res.end('{}');
  };
  const server = await scripted([error(503, 'unavailable'), created, created, ok]);
  try {
    const engram = new Engram({ baseUrl: server.baseUrl, apiKey: 'sk_test', retryBaseDelayMs: 1 });
    const owner = engram.owner('u');
    await owner.facts.assert({ predicate: 'p', value: 1 });
    await owner.facts.assert({ predicate: 'p', value: 1 });
    await engram.schema.list();
    const keys = server.seen.map((req) => req.headers['idempotency-key']);
    assert.equal(keys[0], keys[1]);
    assert.notEqual(keys[1], keys[2]);
    assert.equal(keys[3], undefined);
  } finally {
    await server.close();
  }
});

test('an abort signal stops the waiting between retries', async () => {
  const server = await scripted([error(503, 'unavailable')]);
  try {
    const engram = new Engram({ baseUrl: server.baseUrl, apiKey: 'sk_test', retryBaseDelayMs: 10_000 });
    const controller = new AbortController();
    const call = engram.schema.list({ signal: controller.signal });
    setTimeout(() => controller.abort(new Error('caller gave up')), 50);
    await assert.rejects(call, /caller gave up/);
  } finally {
    await server.close();
  }
});

test('in a browser the SDK leaves User-Agent to the browser (CORS would refuse a scripted one)', async () => {
  const server = await scripted([ok]);
  const scope = globalThis as { document?: unknown };
  scope.document = {};
  try {
    const engram = new Engram({ baseUrl: server.baseUrl, apiKey: 'sk_test' });
    await engram.schema.list();
    assert.notEqual(server.seen[0]?.headers['user-agent'], 'engram-sdk-typescript/0.1.0');
  } finally {
    delete scope.document;
    await server.close();
  }
});

test('a 409 with Retry-After (the key\'s first request still running) is waited out with the same key; one without is thrown at once', async () => {
  const created = (_req: IncomingMessage, res: ServerResponse) => {
    res.writeHead(201, { 'content-type': 'application/json', 'idempotent-replayed': 'true' });
    res.end('{}');
  };
  const server = await scripted([error(409, 'conflict', { 'retry-after': '1' }), created, error(409, 'conflict'), created]);
  try {
    const engram = new Engram({ baseUrl: server.baseUrl, apiKey: 'sk_test', retryBaseDelayMs: 1 });
    await engram.owner('u').facts.assert({ predicate: 'p', value: 1 });
    assert.equal(server.seen.length, 2);
    assert.equal(server.seen[0]?.headers['idempotency-key'], server.seen[1]?.headers['idempotency-key']);
    await assert.rejects(engram.owner('u').facts.assert({ predicate: 'p', value: 2 }), ConflictError);
    assert.equal(server.seen.length, 3);
  } finally {
    await server.close();
  }
});
