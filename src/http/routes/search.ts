import { invalidInput } from '../../errors.js';
import type { Principal } from '../../auth/keys.js';
import type { Scope } from '../../domain/scope.js';
import type { SearchMode } from '../../search/modes.js';
import { normalise } from '../../vector/embedder.js';
import type { AppDeps } from '../context.js';
import { readOnlyPost } from '../idempotency.js';
import type { AppRouter } from '../router.js';
import { BatchSearchBodySchema, EmbedSearchBodySchema, OwnerSearchQuerySchema, SEARCH_K_DEFAULT, SearchQuerySchema, type SearchOptions } from '../schemas/search.js';
import { ownerScope } from '../scope.js';
import { hitJson } from '../serialize-documents.js';
import { documentServices, ownerDocuments } from '../services.js';
import { parseBody, parseQuery } from '../validate.js';

/** `hybrid` unless asked otherwise (DECISIONS.md, Search). */
const DEFAULT_MODE: SearchMode = 'hybrid';

export function registerSearchRoutes(router: AppRouter, deps: AppDeps): void {
  /** One owner's search: by text in any mode (`text` set), or by a caller's vector (semantic only). */
  const run = async (scope: Scope, principal: Principal, query: { text: string | null; vector: Float32Array }, options: SearchOptions) => {
    const result = await ownerDocuments(deps, scope).search({
      mode: query.text === null ? 'semantic' : (options.mode ?? DEFAULT_MODE),
      text: query.text,
      vector: query.vector,
      k: options.k ?? SEARCH_K_DEFAULT,
      filter: { principal: principal.principal, modality: options.modality, maxDistance: options.max_distance },
    });
    return {
      results: result.hits.map((hit) => hitJson(hit, options.include_content ?? false)),
      search_mode: result.mode,
      ...(result.reason === undefined ? {} : { search_mode_reason: result.reason }),
    };
  };

  router.get('/search', async (ctx) => {
    const { entity_id, partition, q, ...options } = parseQuery(ctx, SearchQuerySchema);
    const scope = ownerScope(ctx, { entity_id, partition }, 'read');
    const [vector] = await documentServices(deps).embedder.embed([q]);
    const { results, ...mode } = await run(scope, ctx.state.principal, { text: q, vector: vector! }, options);
    ctx.body = { results, count: results.length, ...mode };
  });

  router.post('/search/embed', readOnlyPost, async (ctx) => {
    const scope = ownerScope(ctx, parseQuery(ctx, OwnerSearchQuerySchema), 'read');
    const { vector, ...options } = await parseBody(ctx, EmbedSearchBodySchema, deps.jsonBodyLimit);
    const dims = documentServices(deps).embedder.dimensions;
    if (vector.length !== dims) throw invalidInput(`vector must have ${dims} numbers (the index's dimension), got ${vector.length}`);
    const query = normalise(Float32Array.from(vector));
    if (query.every((x) => x === 0)) throw invalidInput('vector must not be all zeros');
    const { results } = await run(scope, ctx.state.principal, { text: null, vector: query }, options);
    ctx.body = { results, count: results.length };
  });

  router.post('/search/batch', readOnlyPost, async (ctx) => {
    const scope = ownerScope(ctx, parseQuery(ctx, OwnerSearchQuerySchema), 'read');
    const { queries } = await parseBody(ctx, BatchSearchBodySchema, deps.jsonBodyLimit);
    const vectors = await documentServices(deps).embedder.embed(queries.map((query) => query.q));
    const answers = await Promise.all(queries.map(({ q, ...options }, i) => run(scope, ctx.state.principal, { text: q, vector: vectors[i]! }, options)));
    ctx.body = {
      results: answers.map((answer) => answer.results),
      search_modes: answers.map((answer) => answer.search_mode),
      search_mode_reasons: answers.map((answer) => answer.search_mode_reason ?? null),
    };
  });
}
