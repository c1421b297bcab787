import Koa from 'koa';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppState } from '../../src/http/context.js';
import { createRouter, keepMatches } from '../../src/http/router.js';

/** A router mounted as the service mounts its own: routes under `/v1` on an inner router, matches kept. */
function routes() {
  const v1 = createRouter();
  v1.get('/things/:id', (ctx) => {
    ctx.body = { id: ctx.params.id, matched: (ctx as unknown as { matched: unknown[] }).matched.length };
  });
  v1.post('/things', (ctx) => {
    ctx.status = 201;
    ctx.body = { created: true };
  });
  const root = createRouter();
  root.use('/v1', v1.routes());
  return keepMatches(root);
}

describe('a router that keeps its matches', () => {
  const router = routes();
  const app = new Koa<AppState>();
  app.use(router.allowedMethods());
  app.use(router.routes());
  const server = app.listen(0, '127.0.0.1');
  let base = '';
  beforeAll(() => {
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((done) => server.close(() => done())));

  it('answers as before: each path its own params, the same path again, other methods 405, other paths 404', async () => {
    for (const id of ['a', 'b', 'a', 'ünïcode']) {
      const res = await fetch(`${base}/v1/things/${encodeURIComponent(id)}`);
      expect(await res.json()).toEqual({ id, matched: 1 });
    }
    expect((await fetch(`${base}/v1/things`, { method: 'POST' })).status).toBe(201);
    expect((await fetch(`${base}/v1/things`, { method: 'POST' })).status).toBe(201);
    const wrongMethod = await fetch(`${base}/v1/things/a`, { method: 'DELETE' });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toContain('GET');
    expect((await fetch(`${base}/v1/nothing`)).status).toBe(404);
  });

  it('gives each call lists of its own, so what one request appends never reaches the next', () => {
    const first = router.match('/v1/things/x', 'GET');
    first.path.push(first.path[0]!);
    first.pathAndMethod.length = 0;
    const second = router.match('/v1/things/x', 'GET');
    expect(second.path).toHaveLength(1);
    expect(second.pathAndMethod).toHaveLength(1);
    expect(second.route).toBe(true);
  });

  it('matches every path still, past the number of paths it keeps and past the length of a path it keeps', async () => {
    for (let i = 0; i < 5000; i++) expect(router.match(`/v1/things/id-${i}`, 'GET').route).toBe(true);
    const long = `/v1/things/${'x'.repeat(2000)}`;
    expect(router.match(long, 'GET').route).toBe(true);
    expect(await (await fetch(`${base}${long}`)).json()).toEqual({ id: 'x'.repeat(2000), matched: 1 });
    expect(router.match('/v1/things', 'GET').route).toBe(false);
    expect(await (await fetch(`${base}/v1/things/last`)).json()).toEqual({ id: 'last', matched: 1 });
  });
});
