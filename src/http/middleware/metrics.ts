import { createHash, timingSafeEqual } from 'node:crypto';
import type { Middleware } from 'koa';
import { AppError } from '../../errors.js';
import type { Metrics } from '../../metrics/metrics.js';
import type { AppContext, AppState } from '../context.js';
import { routeTemplate } from './request-log.js';

/**
 * An answered request into `engram_http_request_duration_seconds`, labelled by its route template, never its
 * path, and by `status` (499 when the client went away first: `answeredStatus`).
 */
export function observeRequest(metrics: Metrics, ctx: AppContext, status: number, ms: number): void {
  metrics.httpRequests.observe({ method: ctx.method, route: routeTemplate(ctx) ?? 'unmatched', status: String(status) }, ms / 1000);
}

/**
 * `GET /metrics` on the API port, for a scraper holding METRICS_KEY (not an API key: it reads no owner's
 * data, and an API key reads no metrics). Without METRICS_KEY the path is an ordinary unknown one.
 */
export function serveMetrics(metrics: Metrics, key: string | undefined): Middleware<AppState> {
  if (key === undefined) return (_ctx, next) => next();
  const expected = digest(key);
  const serve: Middleware<AppState> = async (ctx) => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') throw new AppError('method_not_allowed', 'GET /metrics only', { headers: { Allow: 'GET, HEAD' } });
    const given = /^Bearer\s+(\S+)$/i.exec(ctx.get('authorization'))?.[1];
    if (given === undefined || !timingSafeEqual(digest(given), expected)) {
      throw new AppError('unauthorized', 'GET /metrics takes Authorization: Bearer <METRICS_KEY>', { headers: { 'WWW-Authenticate': 'Bearer' } });
    }
    const { text, contentType } = await metrics.render();
    ctx.type = contentType;
    ctx.body = text;
  };
  // Every other request passes through a plain function: no async frame, no promise of its own.
  return (ctx, next) => (ctx.path === '/metrics' ? serve(ctx, next) : next());
}

/** Keys compared by digest: equal lengths for `timingSafeEqual`, whatever was sent. */
function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}
