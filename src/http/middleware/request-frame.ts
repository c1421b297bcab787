import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Middleware } from 'koa';
import type { AppContext, AppDeps, AppState } from '../context.js';
import { observeRequest } from './metrics.js';
import { answeredStatus, requestLine } from './request-log.js';

const VALID_INCOMING = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The first middleware, what every request gets before anything can refuse it: the owner holds in its
 * state (what `ownerScope` reads: the owners held, erased or imported, hide from reads and refuse writes),
 * an id (a valid incoming `X-Request-Id` is reused) echoed as a header, and, once the response has been
 * sent or the client went away, its request log line and (when on) its metrics. One middleware and one
 * `close` listener for all of it, since each layer of Koa's chain and each listener costs every request.
 */
export function requestFrame(deps: Pick<AppDeps, 'holds' | 'log' | 'ownerDigest' | 'metrics'>): Middleware<AppState> {
  const logLine = requestLine(deps.log, deps.ownerDigest);
  const metrics = deps.metrics?.registry;
  return (ctx, next) => {
    const started = performance.now();
    ctx.state.holds = deps.holds;
    const incoming = ctx.get('X-Request-Id');
    ctx.state.requestId = VALID_INCOMING.test(incoming) ? incoming : randomUUID();
    ctx.set('X-Request-Id', ctx.state.requestId);
    // 'close' comes once the response is sent or the client went away (`writableEnded` tells which):
    // one listener, where stream.finished adds five.
    ctx.res.once('close', () => closed(ctx, started));
    return next();
  };

  function closed(ctx: AppContext, started: number): void {
    const ms = performance.now() - started;
    const status = answeredStatus(ctx);
    logLine(ctx, status, ms);
    if (metrics) observeRequest(metrics, ctx, status, ms);
  }
}
