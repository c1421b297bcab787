import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { KEYS, startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
const clock = new ManualClock(Date.UTC(2026, 10, 22, 12));
beforeAll(async () => {
  svc = await startTestService({ clock });
});
afterAll(async () => {
  await svc.stop();
});

describe('status, auth and request ids', () => {
  it('GET /status is public and reports the store and Temporal', async () => {
    const res = await svc.call('GET', '/status', { key: null });
    expect(res.body.store).toEqual({ ready: true });
    expect(res.body.temporal.ready).toBe(false);
    expect(res.status).toBe(503);
    expect(res.headers.get('deprecation')).toBeNull();
  });

  it.each([
    ['no header', null],
    ['unknown key', 'sk_nobody_0123456789abcdef'],
  ])('401 with the error body for %s', async (_label, key) => {
    const res = await svc.call('GET', '/v1/memory/facts?entity_id=u', { key });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: expect.any(String), code: 'unauthorized', request_id: res.headers.get('x-request-id') });
  });

  it('reuses a valid incoming X-Request-Id and replaces an invalid one', async () => {
    const kept = await svc.call('GET', '/v1/memory/facts?entity_id=u', { headers: { 'x-request-id': 'trace-123' } });
    expect(kept.headers.get('x-request-id')).toBe('trace-123');
    const replaced = await svc.call('GET', '/v1/memory/nope?entity_id=u', { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(replaced.body.request_id).not.toBe('bad id with spaces');
    expect(replaced.body.request_id).toBe(replaced.headers.get('x-request-id'));
  });
});

describe('rate limits', () => {
  it('a key over its burst gets 429 with Retry-After; other keys are unaffected', async () => {
    const statuses: number[] = [];
    let limited: Awaited<ReturnType<TestService['call']>> | undefined;
    for (let i = 0; i < 5; i++) {
      const res = await svc.call('GET', '/v1/memory/facts?entity_id=u', { key: KEYS.limited });
      statuses.push(res.status);
      if (res.status === 429) limited = res;
    }
    expect(statuses.slice(0, 3)).toEqual([200, 200, 200]);
    expect(statuses.slice(3)).toEqual([429, 429]);
    expect(limited!.body.code).toBe('rate_limited');
    expect(Number(limited!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await svc.call('GET', '/v1/memory/facts?entity_id=u')).status).toBe(200);
  });
});

describe('versioning', () => {
  it('unversioned paths answer like /v1 with deprecation headers until the sunset', async () => {
    clock.set(Date.UTC(2026, 11, 31, 23, 59, 59));
    const created = await svc.call('POST', '/memory/facts?entity_id=alias-user', { body: { predicate: 'p', value: 1 } });
    expect(created.status).toBe(201);
    expect(created.headers.get('deprecation')).toBe('true');
    expect(created.headers.get('sunset')).toBe('Fri, 01 Jan 2027 00:00:00 GMT');
    expect(created.headers.get('link')).toBe('</v1/memory/facts>; rel="successor-version"');
    const canonical = await svc.call('GET', '/v1/memory/facts?entity_id=alias-user');
    const alias = await svc.call('GET', '/memory/facts?entity_id=alias-user');
    expect(alias.body).toEqual(canonical.body);
    expect(canonical.headers.get('deprecation')).toBeNull();
  });

  it('unversioned paths are 410 gone from the sunset instant on; /v1 and /status keep working', async () => {
    clock.set(Date.UTC(2027, 0, 1));
    const gone = await svc.call('GET', '/memory/facts?entity_id=alias-user');
    expect(gone.status).toBe(410);
    expect(gone.body.code).toBe('gone');
    expect(gone.body.error).toContain('/v1/memory/facts');
    expect((await svc.call('GET', '/v1/memory/facts?entity_id=alias-user')).status).toBe(200);
    expect((await svc.call('GET', '/status', { key: null })).body.store.ready).toBe(true);
    clock.set(Date.UTC(2026, 10, 22, 12));
  });

  it('unknown paths are 404 with the error body', async () => {
    const res = await svc.call('GET', '/v1/unknown');
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('not_found');
    const unknownMethod = await svc.call('PROPFIND', '/v1/unknown');
    expect(unknownMethod.status).toBe(404);
    expect(unknownMethod.body.code).toBe('not_found');
  });
});

describe('methods', () => {
  it.each([
    ['PUT', '/v1/memory/facts?entity_id=u', ['GET', 'HEAD', 'POST']],
    ['PATCH', '/v1/memory/facts/fact_1?entity_id=u', ['DELETE']],
    ['DELETE', '/status', ['GET', 'HEAD']],
    ['PROPFIND', '/v1/memory/facts?entity_id=u', ['GET', 'HEAD', 'POST']],
  ])('%s %s is 405 method_not_allowed with Allow', async (method, path, allowed) => {
    const res = await svc.call(method, path);
    expect(res.status).toBe(405);
    expect(res.body).toEqual({ error: expect.stringContaining(`${method} is not allowed`), code: 'method_not_allowed', request_id: res.headers.get('x-request-id') });
    expect(res.headers.get('allow')!.split(', ').sort()).toEqual(allowed);
  });

  it('an unversioned alias answers 405 like its successor', async () => {
    const res = await svc.call('PUT', '/memory/facts?entity_id=u');
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')!.split(', ').sort()).toEqual(['GET', 'HEAD', 'POST']);
  });

  it('authentication comes first: a wrong method without a key is 401', async () => {
    const res = await svc.call('PUT', '/v1/memory/facts?entity_id=u', { key: null });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('unauthorized');
  });
});

describe('GET /', () => {
  it('without a key: 401, with a message pointing to /status, /v1 and the README', async () => {
    const res = await svc.call('GET', '/', { key: null });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('unauthorized');
    expect(res.body.error).toContain('GET /status is public');
    expect(res.body.error).toContain('/v1');
    expect(res.body.error).toContain('README.md');
  });

  it('with a key: a pointer to the API, /status and the docs', async () => {
    const res = await svc.call('GET', '/');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ service: 'engram', api: '/v1', status: '/status', docs: expect.stringContaining('README.md') });
    expect(res.headers.get('deprecation')).toBeNull();
  });
});
