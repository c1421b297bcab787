import assert from 'node:assert/strict';
import { test } from 'node:test';
import { complete, LlmError } from '../../src/chat/llm.js';
import { buildMessages } from '../../src/chat/prompt.js';

const llm = { apiKey: 'sk-secret-123', baseUrl: 'http://llm.test/v1', model: 'm' };
const answer = (status: number, body: unknown): typeof fetch => async () => new Response(typeof body === 'string' ? body : JSON.stringify(body), { status });

test('the prompt numbers the passages with their titles and ends with the question', () => {
  const [system, user] = buildMessages('Why?', [
    { doc_id: 'd1', title: 'One', score: 50, passage: 'first passage', modality: 'text' },
    { doc_id: 'd2', title: null, score: 40, passage: 'second passage', modality: 'text' },
  ]);
  assert.equal(system?.role, 'system');
  assert.equal(user?.content, 'Passages:\n[1] One: first passage\n\n[2] second passage\n\nQuestion: Why?');
});

test('a completion gives its content and model', async () => {
  assert.deepEqual(await complete(llm, [], answer(200, { model: 'x-1', choices: [{ message: { content: 'hi' } }] })), { answer: 'hi', model: 'x-1' });
});

test('a provider error names the status and its message, with the key removed', async () => {
  await assert.rejects(complete(llm, [], answer(401, { error: { message: 'Incorrect API key provided: sk-secret-123' } })), (error: unknown) => {
    assert.ok(error instanceof LlmError);
    assert.equal(error.message, 'The language model at llm.test answered 401: Incorrect API key provided: [key]');
    return true;
  });
});

test('answers that are not a completion, and a failed connection, are clear errors', async () => {
  await assert.rejects(complete(llm, [], answer(200, 'not json')), /answered something that is not JSON/);
  await assert.rejects(complete(llm, [], answer(200, { choices: [] })), /without a chat completion/);
  await assert.rejects(complete(llm, [], async () => { throw new TypeError('fetch failed'); }), /could not be reached: the connection failed/);
});
