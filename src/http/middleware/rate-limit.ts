import type { Middleware } from 'koa';
import type { Clock } from '../../clock.js';
import { AppError } from '../../errors.js';
import type { AppState } from '../context.js';
import { TokenBucket } from '../token-bucket.js';

/**
 * Per-key limits from `API_KEYS_FILE` (`rate_limit: { per_second, burst }`): a token bucket of `burst`
 * tokens that refills at `per_second`, so a key may burst, then keeps its steady rate. Keys without a
 * limit are not limited. Answers 429 with `Retry-After`: the seconds until the next token.
 */
export function rateLimit(clock: Clock): Middleware<AppState> {
  const buckets = new Map<string, TokenBucket>();
  return async (ctx, next) => {
    const principal = ctx.state.principal;
    const limit = principal?.rateLimit;
    if (!principal || !limit) return next();
    let bucket = buckets.get(principal.keyId);
    // The limit is the key's current one (API_KEYS_FILE is reloaded on SIGHUP): a changed limit is a new
    // bucket; compared by value, so a reload keeps the buckets of keys whose limit did not change.
    if (!bucket || bucket.limit.per_second !== limit.per_second || bucket.limit.burst !== limit.burst) {
      bucket = new TokenBucket(limit);
      buckets.set(principal.keyId, bucket);
    }
    const taken = bucket.take(clock.now());
    if (!taken.ok) {
      const seconds = Math.max(1, Math.ceil(taken.waitMs / 1000));
      throw new AppError('rate_limited', `rate limit of ${limit.per_second} requests/s (burst ${limit.burst}) exceeded; retry in ${seconds}s`, {
        headers: { 'Retry-After': String(seconds) },
      });
    }
    await next();
  };
}
