import type Koa from 'koa';
import { LRUCache } from 'lru-cache';
import type { AppState } from './context.js';

/** Query strings whose parse is kept, and the longest kept: an owner's requests repeat a short one. */
const QUERIES_KEPT = 1000;
const LONGEST_KEPT = 256;

/**
 * `ctx.query` parsed once per distinct query string rather than once per request. Koa 3 parses it with
 * URLSearchParams into a new object every request (~1.8 µs of an assertion's ~65 µs main thread, docs/performance-facts.md),
 * while the requests of one owner repeat the same few strings (`?entity_id=…`). The parse is Koa's own,
 * so the object is the one Koa would give. It is frozen (with the arrays of repeated parameters), because it
 * is now shared between requests: every reader copies or reads it (`parseQuery` spreads it), and a write to
 * it throws instead of reaching another request. Setting `ctx.query` is Koa's setter, unchanged.
 */
export function cacheQueries(app: Koa<AppState>): void {
  const koaQuery = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(app.request) as object, 'query');
  if (!koaQuery?.get || !koaQuery.set) throw new Error("Koa's request has no query accessor to cache");
  const parse = koaQuery.get;
  const parsed = new LRUCache<string, object>({ max: QUERIES_KEPT });
  Object.defineProperty(app.request, 'query', {
    configurable: true,
    get(this: Koa.Request): object {
      const text = this.querystring;
      if (text.length > LONGEST_KEPT) return parse.call(this) as object;
      let query = parsed.get(text);
      if (query === undefined) parsed.set(text, (query = frozen(parse.call(this) as Record<string, unknown>)));
      return query;
    },
    set: koaQuery.set,
  });
}

/** The query and the arrays of its repeated parameters, frozen. */
function frozen(query: Record<string, unknown>): object {
  for (const value of Object.values(query)) if (Array.isArray(value)) Object.freeze(value);
  return Object.freeze(query);
}
