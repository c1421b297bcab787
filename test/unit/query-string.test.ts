import fc from 'fast-check';
import Koa from 'koa';
import { describe, expect, it } from 'vitest';
import { parseQueriesOnce } from '../../src/http/query-string.js';

/** `ctx.query` of a request to `url` in a Koa app, with or without the service's parser. */
function queryOf(app: Koa, url: string): Record<string, unknown> {
  const ctx = app.createContext({ url, method: 'GET', headers: {}, socket: {} } as never, { getHeader: () => undefined, setHeader: () => {} } as never);
  // Entries, not the object: Koa's has Object's prototype, the service's none; what a route reads is the entries.
  return Object.fromEntries(Object.entries(ctx.query));
}

const koa = new Koa();
const fast = new Koa();
parseQueriesOnce(fast);

/**
 * Query strings with what parsers disagree on: escapes good, bad and of ill-formed UTF-8, `+`, repeats, empty
 * parts, `=` in values, and raw bytes as Node hands them over (Latin-1 characters: `Ã©` is a raw UTF-8 `é`).
 */
const pieces = fc.constantFrom('a', 'b', 'entity_id', '=', '&', '+', '%', '%2', '%20', '%25', '%zz', '%C3%A9', '%E0%A4', '%F0%9F%98%80', '%ff', '__proto__', 'constructor', 'Ã©', 'é', '\x7f', '\t', ' ', '#x', '?');
const queryStrings = fc.array(fc.oneof(pieces, fc.string({ maxLength: 4 })), { maxLength: 12 }).map((parts) => parts.join(''));

describe('ctx.query', () => {
  it('reads every query string as Koa does', () => {
    fc.assert(
      fc.property(queryStrings, (qs) => {
        expect(queryOf(fast, `/v1/facts?${qs}`)).toEqual(queryOf(koa, `/v1/facts?${qs}`));
      }),
      { numRuns: 5000 },
    );
  });

  it('keeps every name of a long query string, as Koa does', () => {
    const qs = Array.from({ length: 1500 }, (_, i) => `k${i}=${i}`).join('&');
    expect(Object.keys(queryOf(fast, `/?${qs}`))).toHaveLength(1500);
  });

  it('reads a repeated name as an array and a name without a value as empty', () => {
    expect(queryOf(fast, '/?tag=a&tag=b+c&flag&entity_id=u%C3%A9')).toEqual({ tag: ['a', 'b c'], flag: '', entity_id: 'ué' });
  });

  it('follows the URL when a middleware rewrites it, and lets ctx.query be set', () => {
    const ctx = fast.createContext({ url: '/?entity_id=one', method: 'GET', headers: {}, socket: {} } as never, { getHeader: () => undefined, setHeader: () => {} } as never);
    expect(ctx.query.entity_id).toBe('one');
    ctx.url = '/?entity_id=two';
    expect(ctx.query.entity_id).toBe('two');
    ctx.query = { entity_id: 'three', limit: '5' };
    expect(ctx.querystring).toBe('entity_id=three&limit=5');
    expect(ctx.query).toEqual({ entity_id: 'three', limit: '5' });
  });
});
