import type { Logger } from '../../log.js';
import type { AppContext, AppState } from '../context.js';

/**
 * One `info` line per request, written when the response has been sent (or the client went away, then
 * `aborted`; src/http/middleware/request-frame.ts): the request id a user reports finds it. It names the
 * route template, never the raw path or query string (they carry ids and `q`), and the owner only as a
 * keyed digest; bodies and keys never reach it. `log` writes fixed fields (log.ts, `fixedFieldLogger`).
 */
export function logRequest(log: Logger, ownerDigest: (entityId: string) => string, ctx: AppContext, ms: number): void {
  const owner = ctx.query.entity_id;
  const principal = ctx.state.principal as AppState['principal'] | undefined;
  log.info(
    {
      requestId: ctx.state.requestId,
      method: ctx.method,
      route: routeTemplate(ctx),
      status: ctx.res.statusCode,
      ms: Math.round(ms * 10) / 10,
      tenant: principal?.tenant,
      keyId: principal?.keyId,
      owner: typeof owner === 'string' ? ownerDigest(owner) : undefined,
      ...(ctx.res.writableFinished ? {} : { aborted: true }),
    },
    'request',
  );
}

/** The matched route's template (`/v1/documents/:doc_id`), or null when no route matched. */
export function routeTemplate(ctx: AppContext): string | null {
  const matched = (ctx as { _matchedRoute?: string | RegExp })._matchedRoute;
  return typeof matched === 'string' ? matched : null;
}
