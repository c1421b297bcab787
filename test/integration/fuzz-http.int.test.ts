import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => {
  await svc.stop();
});

const routes = ['/v1/memory/facts', '/v1/memory/entities', '/v1/memory/relationships'];

describe('fuzzing the HTTP edge', () => {
  it('random JSON bodies and query strings never produce a 5xx, and every error has the error body', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...routes),
        fc.oneof(fc.jsonValue(), fc.string()),
        fc.dictionary(fc.constantFrom('entity_id', 'partition', 'limit', 'as_of', 'zzz'), fc.string({ maxLength: 20 })),
        async (route, body, query) => {
          const qs = new URLSearchParams(query).toString();
          const res = await svc.call('POST', `${route}?${qs}`, typeof body === 'string' ? { rawBody: body } : { body });
          expect(res.status).toBeLessThan(500);
          if (res.status >= 400) expect(Object.keys(res.body).sort()).toEqual(['code', 'error', 'request_id']);
        },
      ),
      { numRuns: 300 },
    );
  });
});
