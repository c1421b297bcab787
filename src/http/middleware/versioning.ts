import type { Middleware } from 'koa';
import type { Clock } from '../../clock.js';
import { AppError } from '../../errors.js';
import type { AppState } from '../context.js';
import type { AppRouter } from '../router.js';

export const SUNSET_HTTP_DATE = 'Fri, 01 Jan 2027 00:00:00 GMT';
export const SUNSET_MS = Date.UTC(2027, 0, 1);
const CANONICAL_PREFIX = '/v1';
const UNVERSIONED = new Set(['/', '/status']);

/**
 * Unversioned paths are deprecated aliases of their `/v1` successors: they answer the same, with
 * `Deprecation`, `Sunset` and a `Link` to the successor, until the sunset instant; then 410 `gone`.
 * `/status` (and `/`, the pointer to it) stay unversioned. Paths that name no route fall through to 404.
 */
export function versioning(router: AppRouter, clock: Clock): Middleware<AppState> {
  const alias: Middleware<AppState> = async (ctx, next) => {
    const path = ctx.path;
    const successor = `${CANONICAL_PREFIX}${path}`;
    const match = router.match(successor, ctx.method);
    if (match.path.length === 0) return next();
    if (clock.now() >= SUNSET_MS) {
      throw new AppError('gone', `${path} was removed on ${SUNSET_HTTP_DATE}; use ${successor}`, {
        headers: { Link: `<${successor}>; rel="successor-version"` },
      });
    }
    ctx.set('Deprecation', 'true');
    ctx.set('Sunset', SUNSET_HTTP_DATE);
    ctx.set('Link', `<${successor}>; rel="successor-version"`);
    ctx.path = successor;
    await next();
  };
  // A versioned path (nearly every request) passes through a plain function: no async frame, no promise of its own.
  return (ctx, next) => {
    const path = ctx.path;
    const versioned = UNVERSIONED.has(path) || path === CANONICAL_PREFIX || path.startsWith(`${CANONICAL_PREFIX}/`);
    return versioned ? next() : alias(ctx, next);
  };
}
