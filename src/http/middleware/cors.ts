import cors from '@koa/cors';
import type { Middleware } from 'koa';
import type { AppState } from '../context.js';

/** What a browser may send: the key, JSON, the retry key of writes, a request id to correlate. */
export const CORS_ALLOW_HEADERS = ['Authorization', 'Content-Type', 'Idempotency-Key', 'X-Request-Id'];
/** What a browser's script may read of an answer, beyond the CORS-safelisted headers. */
export const CORS_EXPOSE_HEADERS = ['X-Request-Id', 'Retry-After', 'Idempotent-Replayed', 'Deprecation', 'Sunset'];

/**
 * CORS for the origins of CORS_ORIGINS (`*`: any), through @koa/cors: a preflight from an allowed origin
 * is answered 204 here, before authentication (a preflight carries no key); a request from any other
 * origin gets no CORS header, so its browser withholds the answer. Absent (undefined) when none is allowed:
 * then no CORS header is ever sent.
 */
export function corsFor(origins: readonly string[] | undefined): Middleware<AppState> | undefined {
  if (!origins || origins.length === 0) return undefined;
  const any = origins.includes('*');
  const allowed = new Set(origins);
  return cors({
    origin: (ctx) => (any ? '*' : allowed.has(ctx.get('Origin')) ? ctx.get('Origin') : ''),
    allowMethods: ['GET', 'HEAD', 'PUT', 'POST', 'DELETE'],
    allowHeaders: CORS_ALLOW_HEADERS,
    exposeHeaders: CORS_EXPOSE_HEADERS,
    maxAge: 600,
  }) as Middleware<AppState>;
}
