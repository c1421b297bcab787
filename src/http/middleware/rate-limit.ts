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
  // A plain function, not an async one: it throws or passes on, and koa-compose turns a throw into a rejection.
  return (ctx, next) => {
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
    const keyBucket = bucket;
    const take = (tokens: number) => {
      const taken = keyBucket.take(clock.now(), tokens);
      if (!taken.ok) throw rateLimited(limit, taken.waitMs);
    };
    take(1);
    // A bulk route charges its items once its body is read; never more than a full bucket holds, so that
    // any batch the body limits allow can pass once the bucket has refilled.
    ctx.state.chargeRate = (tokens) => take(Math.min(tokens, Math.max(0, limit.burst - 1)));
    return next();
  };
}

/** How many more requests a bulk route's `items` count as (DECISIONS.md: one per 100 items). */
export function bulkCharge(items: number): number {
  return Math.floor(items / 100);
}

function rateLimited(limit: { per_second: number; burst: number }, waitMs: number): AppError {
  const seconds = Math.max(1, Math.ceil(waitMs / 1000));
  return new AppError('rate_limited', `rate limit of ${limit.per_second} requests/s (burst ${limit.burst}) exceeded; retry in ${seconds}s`, {
    headers: { 'Retry-After': String(seconds) },
  });
}
