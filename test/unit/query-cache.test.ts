import fc from 'fast-check';
import Koa from 'koa';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppState } from '../../src/http/context.js';
import { cacheQueries } from '../../src/http/query-cache.js';

/** Answers what `ctx.query` holds, whether it is frozen, and whether a write to it was refused. */
function echo(app: Koa<AppState>): Koa<AppState> {
  app.use((ctx) => {
    const query = ctx.query;
    const seen = { ...query };
    let refused = false;
    try {
      (query as Record<string, unknown>).added = 'x';
    } catch {
      refused = true;
    }
    ctx.body = { query: seen, frozen: Object.isFrozen(query), refused };
  });
  return app;
}

function listen(app: Koa<AppState>): Promise<{ server: Server; url: string }> {
  return new Promise((resolve) => {
    const server = app.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }));
  });
}

describe('ctx.query parsed once per query string', () => {
  let cached: { server: Server; url: string };
  let plain: { server: Server; url: string };

  beforeAll(async () => {
    const app = new Koa<AppState>();
    cacheQueries(app);
    cached = await listen(echo(app));
    plain = await listen(echo(new Koa<AppState>()));
  });
  afterAll(() => {
    cached.server.close();
    plain.server.close();
  });

  const ask = async (base: string, search: string) => (await fetch(`${base}/x?${search}`)).json() as Promise<{ query: unknown; frozen: boolean; refused: boolean }>;

  it('gives what Koa gives, frozen, and the same on every request with that string', async () => {
    for (const search of ['entity_id=u1', 'entity_id=u1&limit=5', 'a=1&a=2', 'q=caf%C3%A9+au+lait', 'flag', '=x', '', `long=${'y'.repeat(300)}`]) {
      const koa = await ask(plain.url, search);
      const first = await ask(cached.url, search);
      const again = await ask(cached.url, search);
      expect(first.query).toEqual(koa.query);
      expect(again.query).toEqual(first.query);
      // A query longer than the kept ones is Koa's own per request; every kept one is frozen, so a write to
      // it is refused and never reaches the next request with that string.
      if (search.length <= 256) expect(again).toMatchObject({ frozen: true, refused: true });
    }
  });

  it('matches Koa on any query string', async () => {
    const part = fc.oneof(fc.constantFrom('a', 'b', 'entity_id', '%20', '%C3%A9', '+', '=', '&', '%', '%zz', '__proto__'), fc.string({ maxLength: 6 }));
    await fc.assert(
      fc.asyncProperty(fc.array(part, { maxLength: 12 }), async (parts) => {
        const search = parts.join('').replace(/#/g, '');
        expect((await ask(cached.url, search)).query).toEqual((await ask(plain.url, search)).query);
      }),
      { numRuns: 200 },
    );
  });
});

