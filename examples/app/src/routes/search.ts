import Router from '@koa/router';
import type { AppDeps } from '../deps.js';
import { SearchQuerySchema } from '../schemas.js';
import { withTitles } from '../sources.js';
import { parse } from '../validate.js';

/** Search over the owner's documents: scores 0-100, best first, each hit with its passage and title. */
export function searchRoutes({ owner }: AppDeps): Router {
  const router = new Router();
  router.get('/api/search', async (ctx) => {
    const { q, k } = parse(SearchQuerySchema, ctx.query, 'query');
    const found = await owner.search(q, { k });
    const results = await withTitles(owner, found.results);
    ctx.body = { query: q, k, results, count: results.length, search_mode: found.search_mode ?? null };
  });
  return router;
}
