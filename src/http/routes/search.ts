import { invalidInput } from '../../errors.js';
import type { Principal } from '../../auth/keys.js';
import type { Scope } from '../../domain/scope.js';
import { normalise } from '../../vector/embedder.js';
import type { AppDeps } from '../context.js';
import type { AppRouter } from '../router.js';
import { BatchSearchBodySchema, EmbedSearchBodySchema, OwnerSearchQuerySchema, SEARCH_K_DEFAULT, SearchQuerySchema, type SearchOptions } from '../schemas/search.js';
import { ownerScope } from '../scope.js';
import { hitJson } from '../serialize-documents.js';
import { documentServices, ownerDocuments } from '../services.js';
import { parseBody, parseQuery } from '../validate.js';

export function registerSearchRoutes(router: AppRouter, deps: AppDeps): void {
  const run = async (scope: Scope, principal: Principal, vector: Float32Array, options: SearchOptions) => {
    const hits = await ownerDocuments(deps, scope).search(vector, options.k ?? SEARCH_K_DEFAULT, {
      principal: principal.principal,
      modality: options.modality,
      maxDistance: options.max_distance,
    });
    return hits.map((hit) => hitJson(hit, options.include_content ?? false));
  };

  router.get('/search', async (ctx) => {
    const { entity_id, partition, q, ...options } = parseQuery(ctx, SearchQuerySchema);
    const scope = ownerScope(ctx.state.principal, { entity_id, partition });
    const [vector] = await documentServices(deps).embedder.embed([q]);
    const results = await run(scope, ctx.state.principal, vector!, options);
    ctx.body = { results, count: results.length };
  });

  router.post('/search/embed', async (ctx) => {
    const scope = ownerScope(ctx.state.principal, parseQuery(ctx, OwnerSearchQuerySchema));
    const { vector, ...options } = await parseBody(ctx, EmbedSearchBodySchema, deps.jsonBodyLimit);
    const dims = documentServices(deps).embedder.dimensions;
    if (vector.length !== dims) throw invalidInput(`vector must have ${dims} numbers (the index's dimension), got ${vector.length}`);
    const query = normalise(Float32Array.from(vector));
    if (query.every((x) => x === 0)) throw invalidInput('vector must not be all zeros');
    const results = await run(scope, ctx.state.principal, query, options);
    ctx.body = { results, count: results.length };
  });

  router.post('/search/batch', async (ctx) => {
    const scope = ownerScope(ctx.state.principal, parseQuery(ctx, OwnerSearchQuerySchema));
    const { queries } = await parseBody(ctx, BatchSearchBodySchema, deps.jsonBodyLimit);
    const vectors = await documentServices(deps).embedder.embed(queries.map((query) => query.q));
    ctx.body = { results: await Promise.all(queries.map(({ q: _q, ...options }, i) => run(scope, ctx.state.principal, vectors[i]!, options))) };
  });
}
