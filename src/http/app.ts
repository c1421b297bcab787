import Koa from 'koa';
import type { AppDeps, AppState } from './context.js';
import { assertPostsDeclared } from './idempotency.js';
import { authenticate } from './middleware/auth.js';
import { corsFor } from './middleware/cors.js';
import { errorBody } from './middleware/errors.js';
import { serveMetrics } from './middleware/metrics.js';
import { hostedScopesOnly } from './middleware/placement.js';
import { rateLimit } from './middleware/rate-limit.js';
import { requestFrame } from './middleware/request-frame.js';
import { versioning } from './middleware/versioning.js';
import { cacheQueries } from './query-cache.js';
import { createRouter, keepMatches, type AppRouter } from './router.js';
import { registerConsolidateRoute } from './routes/consolidate.js';
import { registerDocumentRoutes } from './routes/documents.js';
import { registerEntityRoutes } from './routes/entities.js';
import { registerErasureRoutes } from './routes/erasure.js';
import { registerMediaRoutes } from './routes/media.js';
import { registerOpenApiRoute } from './routes/openapi.js';
import { registerOwnerTransferRoutes } from './routes/owner-transfer.js';
import { createScopeTransferRouter } from './routes/scope-transfer.js';
import { registerSearchRoutes } from './routes/search.js';
import { registerFactRoutes } from './routes/facts.js';
import { registerGraphRoute } from './routes/graph.js';
import { registerMemoryBatchRoute } from './routes/memory-batch.js';
import { registerQueryRoute } from './routes/query.js';
import { registerRelationshipRoutes } from './routes/relationships.js';
import { registerSchemaRoutes } from './routes/schema.js';
import { registerIndexRoute, registerStatusRoute } from './routes/status.js';

/**
 * Middleware order: the request's frame (owner holds into the state, request id, request log and metrics
 * once answered) → error body → `GET /metrics` (with METRICS_KEY) → CORS (when
 * CORS_ORIGINS allows any origin; a preflight is answered there, before auth) → versioning (aliases, sunset) → auth →
 * placement (421 for a scope another node hosts, with several nodes) → rate limit → the operator's routes of a
 * move (with several nodes) → allowed methods (405 with `Allow`) → routes. Routes are registered without the `/v1` prefix on
 * an inner router mounted at `/v1`.
 */
export function createApp(deps: AppDeps): Koa<AppState> {
  const app = new Koa<AppState>({ proxy: false });
  app.silent = true;
  cacheQueries(app);
  const root = createRoutes(deps);

  app.use(requestFrame(deps));
  app.use(errorBody(deps.log));
  if (deps.metrics) app.use(serveMetrics(deps.metrics.registry, deps.metrics.key));
  const cors = corsFor(deps.corsOrigins);
  if (cors) app.use(cors);
  app.use(versioning(root, deps.clock));
  app.use(authenticate(deps.keys));
  if (deps.placement) app.use(hostedScopesOnly(deps.placement));
  app.use(rateLimit(deps.clock));
  // The operator's routes of a move, with several nodes only: not part of the API document (their own file says why).
  if (deps.scopeTransfers) app.use(createScopeTransferRouter(deps.scopeTransfers).routes());
  app.use(root.allowedMethods());
  app.use(root.routes());
  return app;
}

/** Every route (the OpenAPI document describes exactly these: test/unit/openapi-document.test.ts). */
export function createRoutes(deps: AppDeps): AppRouter {
  const v1 = createRouter();
  registerEntityRoutes(v1, deps);
  registerRelationshipRoutes(v1, deps);
  registerFactRoutes(v1, deps);
  registerGraphRoute(v1, deps);
  registerMemoryBatchRoute(v1, deps);
  registerConsolidateRoute(v1, deps);
  registerDocumentRoutes(v1, deps);
  registerSearchRoutes(v1, deps);
  registerMediaRoutes(v1, deps);
  registerSchemaRoutes(v1, deps);
  registerQueryRoute(v1, deps);
  registerErasureRoutes(v1, deps);
  registerOwnerTransferRoutes(v1, deps);
  registerOpenApiRoute(v1);
  assertPostsDeclared(v1);

  const root = createRouter();
  registerStatusRoute(root, deps);
  registerIndexRoute(root);
  assertPostsDeclared(root);
  root.use('/v1', v1.routes());
  return keepMatches(root);
}
