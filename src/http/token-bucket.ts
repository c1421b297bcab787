import type { RateLimit } from '../auth/keys.js';

export type Take = { ok: true } | { ok: false; waitMs: number };

/**
 * A token bucket: it holds at most `burst` tokens, starts full, and refills continuously at `per_second`;
 * a request takes one token (or `cost`). Kept as the instant the bucket will be full again rather than a
 * fractional count, so a whole-millisecond refill interval adds up without rounding drift.
 */
export class TokenBucket {
  private readonly intervalMs: number;
  private fullAt = Number.NEGATIVE_INFINITY;

  constructor(readonly limit: RateLimit) {
    this.intervalMs = 1000 / limit.per_second;
  }

  /** Takes `cost` tokens at `now` when there are that many; else takes none and says when there will be. */
  take(now: number, cost = 1): Take {
    const capacityMs = this.limit.burst * this.intervalMs;
    // A clock stepped back must not leave the bucket emptier than empty (refilling only from then on).
    this.fullAt = Math.min(this.fullAt, now + capacityMs);
    const debtMs = Math.max(0, this.fullAt - now);
    const afterMs = debtMs + cost * this.intervalMs;
    if (afterMs > capacityMs) return { ok: false, waitMs: afterMs - capacityMs };
    this.fullAt = now + afterMs;
    return { ok: true };
  }
}
