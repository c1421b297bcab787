import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { USER_AGENT } from '@engram-memory/sdk';
import { client } from './harness.js';

describe('service routes through the SDK', () => {
  test('status, index and the OpenAPI document', async () => {
    const engram = client();
    assert.equal((await engram.status()).status, 'ok');
    assert.match((await engram.index()).api, /v1/);
    const document = await engram.openapi();
    assert.match(document.openapi, /^3\.1/);
    assert.equal(USER_AGENT, 'engram-sdk-typescript/0.1.0');
  });
});
