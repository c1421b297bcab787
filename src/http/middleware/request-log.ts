import type { Logger } from '../../log.js';
import type { AppContext, AppState } from '../context.js';

/**
 * One `info` line per request, written when the response has been sent (or the client went away, then
 * `aborted` with status 499: `answeredStatus`; src/http/middleware/request-frame.ts): the request id a user
 * reports finds it. It names the route template, never the raw path or query string (they carry ids and
 * `q`), and the owner only as a keyed digest; bodies and keys never reach it. `log` writes fixed fields
 * (log.ts, `fixedFieldLogger`).
 */
export function logRequest(log: Logger, ownerDigest: (entityId: string) => string, ctx: AppContext, status: number, ms: number): void {
  const owner = ctx.query.entity_id;
  const principal = ctx.state.principal as AppState['principal'] | undefined;
  log.info(
    {
      requestId: ctx.state.requestId,
      method: ctx.method,
      route: routeTemplate(ctx),
      status,
      ms: Math.round(ms * 10) / 10,
      tenant: principal?.tenant,
      keyId: principal?.keyId,
      owner: typeof owner === 'string' ? ownerDigest(owner) : undefined,
      // A field left undefined is left out of the line (pino), as a spread of `{}` would, without the spread.
      aborted: status === CLIENT_CLOSED_REQUEST ? true : undefined,
    },
    'request',
  );
}

/** The matched route's template (`/v1/documents/:doc_id`), or null when no route matched. */
export function routeTemplate(ctx: AppContext): string | null {
  const matched = (ctx as { _matchedRoute?: string | RegExp })._matchedRoute;
  return typeof matched === 'string' ? matched : null;
}

/**
 * The status a request is logged and counted under: the one sent, or 499 (nginx's "client closed request")
 * when the client went away before the answer was sent. Until a route sets one, Node's status is Koa's
 * default 404, so a write still waiting for its commit when its client gave up would count as a 404.
 */
export function answeredStatus(ctx: AppContext): number {
  return ctx.res.writableEnded ? ctx.res.statusCode : CLIENT_CLOSED_REQUEST;
}

export const CLIENT_CLOSED_REQUEST = 499;
