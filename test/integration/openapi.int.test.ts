import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';

describe('GET /v1/openapi.json', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(() => service.stop());

  it('serves the committed document to a caller with a key', async () => {
    const res = await service.call('GET', '/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body).toEqual(JSON.parse(readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8')));
    expect(res.body.openapi).toBe('3.1.0');
  });

  it('is 401 without a key, like every route but /status', async () => {
    const res = await service.call('GET', '/v1/openapi.json', { key: null });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('unauthorized');
  });
});
