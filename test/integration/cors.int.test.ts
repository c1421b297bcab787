import { afterEach, describe, expect, it } from 'vitest';
import { KEYS, startTestService, type TestService } from '../helpers/service.js';

const APP = 'https://app.example.com';
const preflight = (origin: string, headers = 'authorization, content-type, idempotency-key') => ({
  key: null,
  headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': headers },
});
const corsHeaders = (headers: Headers) => [...headers.keys()].filter((name) => name.startsWith('access-control-'));

describe('CORS_ORIGINS', () => {
  let svc: TestService;

  afterEach(async () => {
    await svc?.stop();
  });

  it('is off by default: no CORS header on a preflight or on an answer, whatever the origin', async () => {
    svc = await startTestService();
    const pre = await svc.call('OPTIONS', '/v1/memory/facts?entity_id=u', preflight(APP));
    expect(corsHeaders(pre.headers)).toEqual([]);
    const get = await svc.call('GET', '/v1/memory/facts?entity_id=u', { headers: { origin: APP } });
    expect(get.status).toBe(200);
    expect(corsHeaders(get.headers)).toEqual([]);
    expect(get.headers.get('vary')).toBeNull();
  });

  it('answers an allowed origin\'s preflight with 204 before any key, with the headers an SDK sends and reads', async () => {
    svc = await startTestService({ env: { CORS_ORIGINS: `${APP}, http://localhost:5173` } });
    const pre = await svc.call('OPTIONS', '/v1/memory/facts?entity_id=u', preflight(APP));
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe(APP);
    expect(pre.headers.get('access-control-allow-methods')).toBe('GET,HEAD,PUT,POST,DELETE');
    expect(pre.headers.get('access-control-allow-headers')).toBe('Authorization,Content-Type,Idempotency-Key,X-Request-Id');
    expect(pre.headers.get('access-control-max-age')).toBe('600');
    expect(pre.headers.get('vary')).toContain('Origin');

    const post = await svc.call('POST', '/v1/memory/facts?entity_id=u', { headers: { origin: 'http://localhost:5173', 'idempotency-key': 'k' }, body: { predicate: 'p', value: 1 } });
    expect(post.status).toBe(201);
    expect(post.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
    expect(post.headers.get('access-control-expose-headers')).toBe('X-Request-Id,Retry-After,Idempotent-Replayed,Deprecation,Sunset');
    // Errors carry them too, so the browser lets the script read the error body.
    const denied = await svc.call('GET', '/v1/memory/facts?entity_id=u', { key: null, headers: { origin: APP } });
    expect(denied.status).toBe(401);
    expect(denied.headers.get('access-control-allow-origin')).toBe(APP);
  });

  it('sends no CORS header to another origin, so its browser withholds the answer; its preflight meets the key check', async () => {
    svc = await startTestService({ env: { CORS_ORIGINS: APP } });
    const pre = await svc.call('OPTIONS', '/v1/memory/facts?entity_id=u', preflight('https://evil.example.com'));
    expect(corsHeaders(pre.headers)).toEqual([]);
    expect(pre.status).toBe(401);
    const get = await svc.call('GET', '/v1/memory/facts?entity_id=u', { key: KEYS.acme, headers: { origin: 'https://evil.example.com' } });
    expect(get.status).toBe(200);
    expect(corsHeaders(get.headers)).toEqual([]);
  });

  it('allows any origin with `*`', async () => {
    svc = await startTestService({ env: { CORS_ORIGINS: '*' } });
    const pre = await svc.call('OPTIONS', '/v1/search?entity_id=u&q=x', preflight('https://anywhere.example'));
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe('*');
  });
});
