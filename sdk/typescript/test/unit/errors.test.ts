import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import { ApiError, RateLimitedError, errorClasses, errorFromResponse, parseRetryAfter } from '@engram-memory/sdk';

test('every code of the Error component has its own class, found from an answer', async () => {
  const document = JSON.parse(await readFile(new URL('../../../../../docs/openapi.json', import.meta.url), 'utf8'));
  const codes: string[] = document.components.schemas.Error.properties.code.enum;
  assert.deepEqual(Object.keys(errorClasses).sort(), [...codes].sort());
  for (const code of codes) {
    const error = errorFromResponse(400, new Headers(), { error: 'm', code, request_id: 'req_1' });
    assert.ok(error instanceof errorClasses[code as keyof typeof errorClasses], code);
    assert.notEqual(error.constructor, ApiError, `${code} has a class of its own`);
    assert.equal(error.code, code);
    assert.equal(error.requestId, 'req_1');
  }
});

test('answers without an error body still give a typed error (a proxy 502, an unknown code)', () => {
  const proxied = errorFromResponse(502, new Headers({ 'x-request-id': 'req_2' }), null);
  assert.equal(proxied.code, 'provider_error');
  assert.equal(proxied.requestId, 'req_2');
  const newer = errorFromResponse(418, new Headers(), { error: 'tea', code: 'teapot', request_id: 'r' });
  assert.equal(newer.constructor, ApiError);
  assert.equal(newer.message, 'tea');
});

test('Retry-After in seconds or as an HTTP date', () => {
  assert.equal(parseRetryAfter('3'), 3);
  assert.equal(parseRetryAfter('1.5'), 1.5);
  assert.equal(parseRetryAfter(null), null);
  assert.equal(parseRetryAfter('soon'), null);
  const now = Date.parse('2026-01-01T00:00:00Z');
  assert.equal(parseRetryAfter('Thu, 01 Jan 2026 00:00:10 GMT', now), 10);
  const limited = errorFromResponse(429, new Headers({ 'retry-after': '2' }), { error: 'slow down', code: 'rate_limited', request_id: 'r' });
  assert.ok(limited instanceof RateLimitedError);
  assert.equal(limited.retryAfter, 2);
});
