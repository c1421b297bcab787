/**
 * The live suite: every module runs in this one process against the service `sdk/live-service.sh`
 * started, so that the last test can check that every operation of docs/openapi.json was called
 * through the SDK.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import { calledOperations } from './live/harness.js';
import './live/service.js';
import './live/memory.js';
import './live/documents.js';
import './live/search.js';
import './live/query.js';
import './live/lifecycle.js';
import './live/errors.js';
import './live/idempotency.js';
import './live/tour.js';

test('every operationId of docs/openapi.json was called through the SDK', async () => {
  const document = JSON.parse(await readFile(new URL('../../../../docs/openapi.json', import.meta.url), 'utf8')) as {
    paths: Record<string, Record<string, { operationId: string }>>;
  };
  const documented = Object.values(document.paths).flatMap((methods) => Object.values(methods).map((op) => op.operationId));
  assert.deepEqual(documented.filter((id) => !calledOperations.has(id)), []);
});
