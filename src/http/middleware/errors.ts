import type { Middleware } from 'koa';
import { AppError } from '../../errors.js';
import type { Logger } from '../../log.js';
import type { AppContext, AppState } from '../context.js';
import { routeTemplate } from './request-log.js';

/**
 * The only place errors become responses: `{ error, code, request_id }`. An `AppError` shows its message
 * when exposed; anything else is a 500 `internal` whose details go to the log, never to the client.
 */
export function errorBody(log: Logger): Middleware<AppState> {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.body === undefined) unrouted(ctx);
    } catch (caught) {
      const error = toAppError(caught);
      if (error.status >= 500) log.error({ err: caught, requestId: ctx.state.requestId, route: routeTemplate(ctx) }, 'request failed');
      ctx.status = error.status;
      ctx.set(error.headers);
      ctx.body = {
        error: error.expose ? error.message : 'internal error',
        code: error.code,
        request_id: ctx.state.requestId,
      };
    }
  };
}

/**
 * No route answered. The router's `allowedMethods` leaves a bare 405 (or 501 for a method it does not
 * know) with `Allow` when the path exists under other methods: 405 `method_not_allowed`; else 404.
 */
function unrouted(ctx: AppContext): void {
  const allow = ctx.response.get('Allow');
  if ((ctx.status === 405 || ctx.status === 501) && allow) {
    throw new AppError('method_not_allowed', `${ctx.method} is not allowed on ${ctx.path}; allowed: ${allow}`, { headers: { Allow: allow } });
  }
  if (ctx.status === 404 || ctx.status === 405 || ctx.status === 501) throw new AppError('not_found', `no route ${ctx.method} ${ctx.path}`);
}

/** 413 for a body past the route's limit, whoever read it (co-body, or a body read once and shared). */
export const bodyTooLarge = (): AppError => new AppError('payload_too_large', 'request body is larger than this route accepts');

/** 400 for a body whose client went away before its end, whoever read it (co-body, or src/http/request-body.ts). */
export const bodyNotReceived = (): AppError => new AppError('invalid_input', 'request body was not received completely');

/** Errors thrown by libraries (body parsing) carry an HTTP status; they are mapped to our codes. */
function toAppError(caught: unknown): AppError {
  if (caught instanceof AppError) return caught;
  const e = caught as { status?: number; type?: string; message?: string };
  if (e?.type === 'entity.too.large' || e?.status === 413) return bodyTooLarge();
  if (e?.type === 'entity.parse.failed' || caught instanceof SyntaxError) return new AppError('invalid_input', 'request body is not valid JSON');
  if (e?.type === 'encoding.unsupported' || e?.type === 'charset.unsupported') {
    return new AppError('invalid_input', 'request body encoding is not supported');
  }
  if (e?.type === 'request.aborted') return bodyNotReceived();
  if (typeof e?.status === 'number' && e.status >= 400 && e.status < 500) {
    return new AppError('invalid_input', 'request is malformed');
  }
  return new AppError('internal', 'internal error', { cause: caught });
}
