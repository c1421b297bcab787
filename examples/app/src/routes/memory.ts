import Router from '@koa/router';
import type { AppDeps } from '../deps.js';
import { MemoryListQuerySchema, NoQuerySchema, GraphQuerySchema, OwnerPathSchema } from '../schemas.js';
import { parse } from '../validate.js';

/** Most records a list route gathers for the page; past it the answer says `truncated: true`. */
export const MEMORY_LIST_CAP = 2000;

/** The first `cap` items of an async iterator, and whether more were left. */
async function gather<T>(items: AsyncIterable<T>, cap = MEMORY_LIST_CAP): Promise<{ items: T[]; truncated: boolean }> {
  const out: T[] = [];
  for await (const item of items) {
    if (out.length === cap) return { items: out, truncated: true };
    out.push(item);
  }
  return { items: out, truncated: false };
}

/** The list parameters for Engram: as of an instant, the whole history, or (neither) what is active now. */
function listScope(asOf: string | undefined, history: boolean): { as_of?: string; include_inactive?: boolean } {
  if (asOf) return { as_of: asOf };
  return history ? { include_inactive: true } : {};
}

/**
 * Read-only views of any owner's memory graph for the Memory page, so that the browser never holds the
 * key. Relationships and facts: active now by default, the
 * whole history (active and inactive) with `history=true`, or what Engram knew at `as_of`.
 */
export function memoryRoutes({ engram }: AppDeps): Router {
  const router = new Router({ prefix: '/api/memory/:owner' });
  const ownerOf = (params: unknown) => engram.owner(parse(OwnerPathSchema, params, 'owner').owner);

  router.get('/entities', async (ctx) => {
    const owner = ownerOf(ctx.params);
    parse(NoQuerySchema, ctx.query, 'query');
    const { items, truncated } = await gather(owner.entities.iterate({ limit: 1000 }));
    ctx.body = { owner: owner.id, entities: items, count: items.length, truncated };
  });

  router.get('/relationships', async (ctx) => {
    const owner = ownerOf(ctx.params);
    const { as_of, history } = parse(MemoryListQuerySchema, ctx.query, 'query');
    const { items, truncated } = await gather(owner.relationships.iterate({ ...listScope(as_of, history), limit: 1000 }));
    ctx.body = { owner: owner.id, as_of: as_of ?? null, history, relationships: items, count: items.length, truncated };
  });

  router.get('/facts', async (ctx) => {
    const owner = ownerOf(ctx.params);
    const { as_of, history } = parse(MemoryListQuerySchema, ctx.query, 'query');
    const { items, truncated } = await gather(owner.facts.iterate({ ...listScope(as_of, history), limit: 1000 }));
    ctx.body = { owner: owner.id, as_of: as_of ?? null, history, facts: items, count: items.length, truncated };
  });

  router.get('/graph', async (ctx) => {
    const owner = ownerOf(ctx.params);
    const { node, depth, as_of } = parse(GraphQuerySchema, ctx.query, 'query');
    const graph = await owner.graph(node, as_of ? { depth, as_of, include_facts: true } : { depth, include_facts: true });
    ctx.body = { owner: owner.id, node, depth, as_of: as_of ?? null, ...graph };
  });

  return router;
}
