import Router from '@koa/router';
import type { AppState } from './context.js';

export type AppRouter = Router<AppState>;

export function createRouter(): AppRouter {
  return new Router<AppState>();
}

type MatchResult = ReturnType<AppRouter['match']>;

/**
 * Keeps the router's `match` of each method and path it has answered, for a router whose routes are all
 * registered (call it last). @koa/router tests every route's regular expression against every request's
 * path: with the API's ~50 routes that was ~3.5% of the instructions a fact assertion costs the service
 * (`npm run bench:instructions`), for an answer that depends on the method and path alone. Anyone can
 * send any path (versioning matches before auth), and paths carry ids: at most `MATCHES_KEPT` paths of at
 * most `KEPT_PATH_MAX` characters are kept (~2 MB at most), past that the memory starts again, and a path
 * not kept is matched as before.
 */
export function keepMatches(router: AppRouter): AppRouter {
  const match = router.match.bind(router);
  const kept = new Map<string, Map<string, MatchResult>>();
  let size = 0;
  router.match = (path, method) => {
    if (path.length > KEPT_PATH_MAX) return match(path, method);
    let byPath = kept.get(method);
    if (!byPath) kept.set(method, (byPath = new Map()));
    let found = byPath.get(path);
    if (!found) {
      found = match(path, method);
      if (size >= MATCHES_KEPT) {
        for (const paths of kept.values()) paths.clear();
        size = 0;
      }
      byPath.set(path, found);
      size++;
    }
    // Lists of its own for each request: the router appends to `ctx.matched`, which may be this list.
    return { path: [...found.path], pathAndMethod: [...found.pathAndMethod], route: found.route };
  };
  return router;
}

const MATCHES_KEPT = 4096;
/** Longer than any route's path with ids of at most 128 characters, far shorter than a request line may be (~16 KB). */
const KEPT_PATH_MAX = 512;
