import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { AppState } from '../context.js';

const VALID_INCOMING = /^[A-Za-z0-9._:-]{1,128}$/;

/** Gives each request an id (a valid incoming `X-Request-Id` is reused) and echoes it as a header. */
export function requestId(): Middleware<AppState> {
  return async (ctx, next) => {
    const incoming = ctx.get('X-Request-Id');
    ctx.state.requestId = VALID_INCOMING.test(incoming) ? incoming : randomUUID();
    ctx.set('X-Request-Id', ctx.state.requestId);
    await next();
  };
}
