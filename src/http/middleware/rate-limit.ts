import type { Middleware } from 'koa';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { AppError } from '../../errors.js';
import type { AppState } from '../context.js';

/**
 * Per-key limits from `API_KEYS_FILE` (`rate_limit: { per_second, burst }`): a bucket of `burst` points
 * that refills at `per_second`. Keys without a limit are not limited. Answers 429 with `Retry-After`.
 */
export function rateLimit(): Middleware<AppState> {
  const limiters = new Map<string, RateLimiterMemory>();
  return async (ctx, next) => {
    const principal = ctx.state.principal;
    const limit = principal?.rateLimit;
    if (!principal || !limit) return next();
    // The limit is the key's current one (API_KEYS_FILE is reloaded on SIGHUP): a changed limit is a new bucket.
    const bucket = `${principal.keyId}:${limit.per_second}:${limit.burst}`;
    let limiter = limiters.get(bucket);
    if (!limiter) {
      limiter = new RateLimiterMemory({ points: limit.burst, duration: limit.burst / limit.per_second });
      limiters.set(bucket, limiter);
    }
    try {
      await limiter.consume(principal.keyId);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      const seconds = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
      throw new AppError('rate_limited', `rate limit of ${limit.per_second} requests/s exceeded; retry in ${seconds}s`, {
        headers: { 'Retry-After': String(seconds) },
      });
    }
    await next();
  };
}
