import Router from '@koa/router';
import type { AppDeps } from '../deps.js';

/**
 * The owner's document count, exact: a structured query's `total` counts every matching document, not
 * one page, and like search it leaves soft-deleted documents out.
 */
export function statsRoutes({ engram, config }: AppDeps): Router {
  const router = new Router();
  router.get('/api/stats', async (ctx) => {
    const page = await engram.query({ filter: { field: 'entity_id', op: 'eq', value: config.owner }, limit: 1 });
    ctx.body = { owner: config.owner, documents: page.total };
  });
  router.get('/api/info', (ctx) => {
    // What the page needs to know about the configuration: never a key, only whether one is set.
    ctx.body = { owner: config.owner, llm: { configured: config.llm.apiKey !== null, model: config.llm.model } };
  });
  return router;
}
