import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeyRing } from '../../src/auth/keys.js';
import { ManualClock } from '../../src/clock.js';
import { startTestService, type TestService } from '../helpers/service.js';

// Keys with the limits of the README's example shape; time moves only when a test moves the clock.
const BURSTY = 'sk_test_bursty_0123456789abcdef';
const SLOW = 'sk_test_slow_0123456789abcdef';
const OTHER = 'sk_test_other_0123456789abcdef';

let svc: TestService;
const clock = new ManualClock(Date.UTC(2026, 10, 22, 12));
beforeAll(async () => {
  const keys = KeyRing.fromKeys([
    { key: BURSTY, tenant: 'bursty', rateLimit: { per_second: 5, burst: 10 } },
    { key: SLOW, tenant: 'slow', rateLimit: { per_second: 0.25, burst: 1 } },
    { key: OTHER, tenant: 'other' },
  ]);
  svc = await startTestService({ clock, keys });
});
afterAll(async () => {
  await svc.stop();
});

const read = (key: string) => svc.call('GET', '/v1/memory/facts?entity_id=u', { key });

describe('rate limits: a token bucket per key (README, Errors, limits and versioning)', () => {
  it('at 20 requests/s for 5 s against per_second 5, burst 10: the burst, then the refill rate', async () => {
    const acceptedPerSecond = [0, 0, 0, 0, 0];
    for (let i = 0; i < 100; i++) {
      const res = await read(BURSTY);
      expect([200, 429]).toContain(res.status);
      if (res.status === 200) acceptedPerSecond[Math.floor(i / 20)]! += 1;
      clock.advance(50);
    }
    // The first second: the full bucket of 10 and the 4 tokens refilled by t = 950 ms; then the rate.
    // (The fixed window it replaces accepted 10, 0, 10, 0, 10.)
    expect(acceptedPerSecond).toEqual([14, 5, 5, 5, 5]);
  });

  it('Retry-After is the whole seconds until the next token, and the token is there then', async () => {
    clock.advance(60_000);
    expect((await read(SLOW)).status).toBe(200);
    const refused = await read(SLOW);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ error: expect.stringContaining('0.25 requests/s'), code: 'rate_limited', request_id: refused.headers.get('x-request-id') });
    expect(refused.headers.get('retry-after')).toBe('4');
    clock.advance(2_500);
    expect((await read(SLOW)).headers.get('retry-after')).toBe('2');
    clock.advance(1_500);
    expect((await read(SLOW)).status).toBe(200);
    expect((await read(OTHER)).status).toBe(200);
  });

  it('a clock stepped back leaves the bucket empty at worst, not locked', async () => {
    clock.advance(60_000);
    expect((await read(SLOW)).status).toBe(200);
    clock.advance(-86_400_000);
    expect((await read(SLOW)).headers.get('retry-after')).toBe('4');
    clock.advance(4_000);
    expect((await read(SLOW)).status).toBe(200);
  });
});

describe('bulk routes count one request plus one per 100 items (DECISIONS.md, Bulk writes)', () => {
  const BULK = 'sk_test_bulk_0123456789abcdef';
  let bulk: TestService;
  const bulkClock = new ManualClock(Date.UTC(2026, 10, 22, 12));
  beforeAll(async () => {
    bulk = await startTestService({ clock: bulkClock, keys: KeyRing.fromKeys([{ key: BULK, tenant: 'bulk', rateLimit: { per_second: 1, burst: 5 } }]) });
  });
  afterAll(async () => {
    await bulk.stop();
  });
  const facts = (n: number) => ({ operations: Array.from({ length: n }, (_, i) => ({ op: 'assert_fact', predicate: `p${i}`, value: i })) });
  const send = (n: number) => bulk.call('POST', '/v1/memory/batch?entity_id=u', { key: BULK, body: facts(n) });

  it('a batch of 250 takes 3 tokens; 99 items take 1; an over-large batch takes at most a full bucket, and a refused one stores nothing', async () => {
    expect((await send(250)).status).toBe(200); // 3 of 5
    expect((await send(99)).status).toBe(200); // 4 of 5
    const refused = await send(100); // needs 2, 1 left
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    const active = async () => {
      bulkClock.advance(5000);
      return (await bulk.call('GET', '/v1/memory/facts?entity_id=u&limit=1000', { key: BULK })).body.count;
    };
    expect(await active()).toBe(250);
    bulkClock.advance(5000);
    expect((await send(1000)).status).toBe(200); // 11 capped at the bucket's 5
    expect(await active()).toBe(1000);
  });
});
