import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock, startTestService, type TestService } from '../helpers/service.js';

/**
 * `observed_at` is transaction time: a fact observed in the future would outrank every current assertion
 * of its predicate until then. It may lead the service clock by OBSERVED_AT_MAX_SKEW_MS at most.
 */
const NOW = Date.UTC(2026, 10, 21, 12, 0, 0);
const iso = (ms: number) => new Date(ms).toISOString();
const MINUTE = 60_000;

let svc: TestService | undefined;
afterEach(async () => {
  await svc?.stop();
  svc = undefined;
});

async function start(env: Record<string, string> = {}): Promise<{ svc: TestService; clock: ManualClock }> {
  const clock = new ManualClock(NOW);
  svc = await startTestService({ clock, env });
  return { svc, clock };
}

const assert = (on: TestService, owner: string, body: object) => on.call('POST', `/v1/memory/facts?entity_id=${owner}`, { body: { predicate: 'city', ...body } });
const activeValues = async (on: TestService, owner: string, extra = '') =>
  (await on.call('GET', `/v1/memory/facts?entity_id=${owner}${extra}`)).body.facts.map((f: any) => f.value);

describe('observed_at may lead the service clock by OBSERVED_AT_MAX_SKEW_MS at most', () => {
  it('refuses a fact observed in 2030, so the current assertion stays active and as_of now agrees', async () => {
    const { svc } = await start();
    const future = await assert(svc, 'u', { value: 'Paris', observed_at: '2030-01-01T00:00:00Z' });
    expect(future.status).toBe(400);
    expect(future.body.code).toBe('invalid_input');
    expect(future.body.error).toBe(
      'observed_at must be at most 300000 ms after the service clock (OBSERVED_AT_MAX_SKEW_MS): at most 2026-11-21T12:05:00.000Z, ' +
        'got 2030-01-01T00:00:00.000Z; send when the fact becomes true as valid_from',
    );

    expect((await assert(svc, 'u', { value: 'Lyon' })).status).toBe(201);
    expect(await activeValues(svc, 'u')).toEqual(['Lyon']);
    expect(await activeValues(svc, 'u', `&as_of=${iso(NOW)}`)).toEqual(['Lyon']);
    expect(await activeValues(svc, 'u', '&include_inactive=true')).toEqual(['Lyon']);
  });

  it('accepts up to the default five minutes ahead, and one millisecond more is 400', async () => {
    const { svc } = await start();
    expect((await assert(svc, 'edge', { value: 'over', observed_at: iso(NOW + 5 * MINUTE + 1) })).status).toBe(400);
    const atBound = await assert(svc, 'edge', { value: 'at', observed_at: iso(NOW + 5 * MINUTE) });
    expect(atBound.status).toBe(201);
    expect(atBound.body.observed_at).toBe('2026-11-21T12:05:00.000Z');
  });

  it('reads the bound from the service clock: what was too far ahead is accepted once the clock catches up', async () => {
    const { svc, clock } = await start();
    const later = iso(NOW + 10 * MINUTE);
    expect((await assert(svc, 'clock', { value: 'x', observed_at: later })).status).toBe(400);
    clock.advance(5 * MINUTE);
    expect((await assert(svc, 'clock', { value: 'x', observed_at: later })).status).toBe(201);
  });

  it('takes the skew from OBSERVED_AT_MAX_SKEW_MS; 0 allows no lead at all', async () => {
    const { svc } = await start({ OBSERVED_AT_MAX_SKEW_MS: '0' });
    const ahead = await assert(svc, 'strict', { value: 'x', observed_at: iso(NOW + 1) });
    expect(ahead.status).toBe(400);
    expect(ahead.body.error).toMatch(/^observed_at must be at most 0 ms after the service clock .*at most 2026-11-21T12:00:00.000Z, got 2026-11-21T12:00:00.001Z/);
    expect((await assert(svc, 'strict', { value: 'x', observed_at: iso(NOW) })).status).toBe(201);
  });

  it('leaves valid_from (world time) and past observations unbounded', async () => {
    const { svc } = await start();
    const planned = await assert(svc, 'world', { value: 'Berlin', valid_from: '2030-01-01T00:00:00Z' });
    expect(planned.status).toBe(201);
    expect(planned.body).toMatchObject({ valid_from: '2030-01-01T00:00:00.000Z', observed_at: iso(NOW) });
    const old = await assert(svc, 'world', { value: 'Rome', observed_at: '1999-01-01T00:00:00Z' });
    expect(old.status).toBe(201);
    expect(await activeValues(svc, 'world')).toEqual(['Berlin']);
  });
});
