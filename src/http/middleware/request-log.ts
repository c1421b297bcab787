import { pino, type DestinationStream } from 'pino';
import type { Logger } from '../../log.js';
import type { AppContext, AppState } from '../context.js';

/** Writes a request's log line: `requestLine` below. */
export type RequestLine = (ctx: AppContext, status: number, ms: number) => void;

/**
 * One `info` line per request, written when the response has been sent (or the client went away, then
 * `aborted` with status 499: `answeredStatus`; src/http/middleware/request-frame.ts): the request id a user
 * reports finds it. It names the route template, never the raw path or query string (they carry ids and
 * `q`), and the owner only as a keyed digest (`ownerDigest`); bodies and keys never reach it.
 *
 * The line is the one `log.info(fields, 'request')` writes, level, time and the logger's bindings first,
 * built from one template and written to the logger's stream: pino's serialiser walks the fields object and
 * adds each field to the line in turn (escaping each string), ~3% of the instructions an assertion costs
 * the service (`npm run bench:instructions`). Its fields need no walk: the request id is a UUID or an
 * incoming id of `[A-Za-z0-9._:-]`, the method an HTTP token, the key id and owner hex digests; the tenant
 * and the route template are escaped once each and kept.
 */
export function requestLine(log: Logger, ownerDigest: (entityId: string) => string): RequestLine {
  const stream = (log as unknown as Record<symbol, DestinationStream>)[pino.symbols.streamSym]!;
  // `,"pid":…,"hostname":"…"` and any child bindings, as pino writes them after the time.
  const bindings = (log as unknown as Record<symbol, string>)[pino.symbols.chindingsSym] ?? '';
  const principals = new WeakMap<object, string>();
  const routes = new Map<string, string>();
  return (ctx, status, ms) => {
    if (!log.isLevelEnabled('info')) return;
    const template = routeTemplate(ctx);
    let route = template === null ? 'null' : routes.get(template);
    if (route === undefined) routes.set(template!, (route = JSON.stringify(template)));
    const principal = ctx.state.principal as AppState['principal'] | undefined;
    let principalFields = principal ? principals.get(principal) : '';
    if (principalFields === undefined) {
      principalFields = `,"tenant":${JSON.stringify(principal!.tenant)},"keyId":${JSON.stringify(principal!.keyId)}`;
      principals.set(principal!, principalFields);
    }
    const owner = ctx.query.entity_id;
    stream.write(
      `{"level":30,"time":${Date.now()}${bindings},"requestId":"${ctx.state.requestId}","method":"${ctx.method}","route":${route},"status":${status},` +
        `"ms":${Math.round(ms * 10) / 10}${principalFields}${typeof owner === 'string' ? `,"owner":"${ownerDigest(owner)}"` : ''}` +
        `${status === CLIENT_CLOSED_REQUEST ? ',"aborted":true' : ''},"msg":"request"}\n`,
    );
  };
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
