import type { AppDeps } from '../context.js';
import type { AppRouter } from '../router.js';

/**
 * `GET /status`: public, unversioned; 200 when every dependency is ready, else 503 with the details. It also
 * says which embedder runs; a fallback to the hashing embedder is reported there, not as unreadiness.
 */
export function registerStatusRoute(router: AppRouter, deps: AppDeps): void {
  router.get('/status', (ctx) => {
    const store = storeReadiness(deps);
    const temporal = deps.jobs.readiness();
    const ready = store.ready && temporal.ready;
    ctx.status = ready ? 200 : 503;
    ctx.body = { status: ready ? 'ok' : 'degraded', store, temporal, ...(deps.embedder ? { embedder: deps.embedder } : {}) };
  });
}

/**
 * `GET /` answers with where things are: a pointer, no data. It takes a key like every route but
 * `/status` (DECISIONS.md, Public routes); without one its 401 message points to the same places.
 */
export function registerIndexRoute(router: AppRouter): void {
  router.get('/', (ctx) => {
    ctx.body = { service: 'engram', api: '/v1', status: '/status', docs: 'README.md and docs/ of the Engram repository' };
  });
}

function storeReadiness(deps: AppDeps) {
  try {
    deps.store.env.getStats();
    return { ready: true as const };
  } catch {
    return { ready: false as const, detail: 'LMDB environment is not readable' };
  }
}
