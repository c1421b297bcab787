import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConnectionError, NotFoundError } from '@engram-memory/sdk';
import { z } from 'zod';
import { AppError, errorAnswer } from '../../src/errors.js';

test('Engram\'s errors keep their status, code, message and request id', () => {
  const error = new NotFoundError({ status: 404, code: 'not_found', message: 'document doc_1 not found', requestId: 'req-1' });
  assert.deepEqual(errorAnswer(error, 'mine', 'http://e'), { status: 404, body: { error: 'document doc_1 not found', code: 'not_found', request_id: 'req-1' } });
});

test('an unreachable Engram is 502 naming where it was looked for', () => {
  const { status, body } = errorAnswer(new ConnectionError('fetch failed'), 'r', 'http://127.0.0.1:8080');
  assert.equal(status, 502);
  assert.equal(body.code, 'engram_unreachable');
  assert.match(body.error, /http:\/\/127\.0\.0\.1:8080/);
});

test('a zod failure names each field; an unexpected error shows nothing of itself', () => {
  const result = z.object({ q: z.string().min(1, 'must not be empty') }).safeParse({ q: '' });
  assert.ok(!result.success);
  assert.equal(AppError.invalidInput(result.error, 'query').message, 'q: must not be empty');
  const hidden = errorAnswer(new Error('ENGRAM_API_KEY=sk_live_x leaked'), 'r', 'http://e');
  assert.deepEqual(hidden, { status: 500, body: { error: 'The app failed to answer; its log says why', code: 'internal', request_id: 'r' } });
});
