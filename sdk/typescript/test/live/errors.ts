import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, test } from 'node:test';
import { ConfigurationError, ConnectionError, Engram, InvalidInputError, NotFoundError, RateLimitedError, TimeoutError, UnauthorizedError } from '@engram-memory/sdk';
import { client, live, ownerId, retryRecordingClient } from './harness.js';

describe('typed errors and retries', () => {
  test('NotFound carries status, code and the request id the service logged', async () => {
    const owner = client().owner(ownerId('errors'));
    const error = await owner.facts.retract('fact_unknown').catch((e: unknown) => e);
    assert.ok(error instanceof NotFoundError);
    assert.equal(error.status, 404);
    assert.equal(error.code, 'not_found');
    assert.match(error.requestId ?? '', /\S/);
    assert.equal(error.requestId, error.headers.get('x-request-id'));
  });

  test('InvalidInput names the field; Unauthorized with a bad key; a missing key fails before any request', async () => {
    const owner = client().owner(ownerId('errors'));
    const error = await owner.facts.assert({ predicate: 'x', value: 1, observed_at: 'yesterday' }).catch((e: unknown) => e);
    assert.ok(error instanceof InvalidInputError);
    assert.match(error.message, /observed_at/);
    await assert.rejects(client({ apiKey: 'sk_not_a_key' }).schema.list(), UnauthorizedError);
    const saved = process.env.ENGRAM_API_KEY;
    delete process.env.ENGRAM_API_KEY;
    try {
      assert.throws(() => new Engram({ baseUrl: live.baseUrl }), (e: unknown) => e instanceof ConfigurationError && /ENGRAM_API_KEY/.test(e.message));
    } finally {
      process.env.ENGRAM_API_KEY = saved;
    }
  });

  test('429: quick calls on a key limited to 1/s all succeed, the client having waited Retry-After', async () => {
    const { engram, retries } = retryRecordingClient({ apiKey: live.limitedKey });
    const owner = engram.owner(ownerId('limited'));
    const facts = [];
    for (let i = 0; i < 5; i++) facts.push(await owner.facts.assert({ predicate: `n${i}`, value: i }));
    assert.equal(facts.length, 5);
    const rateLimited = retries.filter((r) => r.status === 429);
    assert.ok(rateLimited.length > 0, 'the burst of 2 is spent, so later calls were answered 429 and retried');
    for (const retry of rateLimited) {
      assert.ok(retry.retryAfter !== null && retry.retryAfter > 0);
      assert.ok(retry.delayMs >= retry.retryAfter * 1000, 'never sooner than the server asked');
      assert.ok(retry.error instanceof RateLimitedError);
    }
    const keys = new Set(rateLimited.map((r) => r.idempotencyKey));
    assert.ok(!keys.has(null), 'the retried writes carried their Idempotency-Key');
    assert.equal((await owner.facts.list()).count, 5, 'each write applied once');
  });

  test('429 with retries off: RateLimited with retry_after', async () => {
    const engram = client({ apiKey: live.limitedKey, maxRetries: 0 });
    const error = await (async () => {
      for (let i = 0; i < 10; i++) await engram.schema.list();
    })().catch((e: unknown) => e);
    assert.ok(error instanceof RateLimitedError);
    assert.equal(error.status, 429);
    assert.ok(error.retryAfter !== null && error.retryAfter > 0);
  });

  test('connection errors are retried with backoff, then raised as ConnectionError', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const { port } = closed.address() as AddressInfo;
    await new Promise((r) => closed.close(r));
    const { engram, retries } = retryRecordingClient({ baseUrl: `http://127.0.0.1:${port}`, maxRetries: 2, retryBaseDelayMs: 10 });
    await assert.rejects(engram.schema.list(), ConnectionError);
    assert.deepEqual(retries.map((r) => [r.attempt, r.status]), [[0, null], [1, null]]);
    assert.ok(retries[1]!.delayMs >= 10, 'the second wait is the doubled step, at least its half');
  });

  test('an attempt over timeoutMs raises TimeoutError', async () => {
    const silent = createServer(() => {});
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    try {
      const { port } = silent.address() as AddressInfo;
      const engram = new Engram({ baseUrl: `http://127.0.0.1:${port}`, apiKey: 'sk_any', timeoutMs: 200 });
      await assert.rejects(engram.schema.list(), TimeoutError);
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });
});
