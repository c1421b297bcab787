import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { memoryLog } from '../helpers/memory-log.js';
import { KEYS, startTestService, type SocketTestService, type TestService } from '../helpers/service.js';

const METRICS_KEY = 'metrics-scraper-key-0123456789';
const OWNER = 'owner-who-must-not-appear-7f3a';

/** The value of one sample line (`name{labels} value`) of the exposition text, or undefined. */
function sample(text: string, name: string, labels = ''): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name}${labels} `) || (labels === '' && l.startsWith(`${name} `)));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('GET /metrics with METRICS_KEY', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ env: { METRICS_KEY } });
  });
  afterAll(async () => {
    await svc.stop();
  });
  const scrape = () => svc.call('GET', '/metrics', { key: METRICS_KEY });

  it('counts requests by method, route template and status, and never names a path id, an owner or a query', async () => {
    await svc.call('POST', `/v1/memory/facts?entity_id=${OWNER}`, { body: { predicate: 'city', value: 'Paris' } });
    await svc.call('POST', `/v1/memory/facts?entity_id=${OWNER}`, { body: { predicate: 'city', value: 'Lyon' } });
    await svc.call('GET', `/v1/memory/entities/node-${OWNER}?entity_id=${OWNER}`);
    await svc.call('GET', `/v1/search?entity_id=${OWNER}&q=secret-query-text`);
    await svc.call('GET', '/nowhere/at/all');
    const res = await scrape();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text: string = res.body;
    expect(sample(text, 'engram_http_request_duration_seconds_count', '{method="POST",route="/v1/memory/facts",status="201"}')).toBe(2);
    expect(sample(text, 'engram_http_request_duration_seconds_count', '{method="GET",route="/v1/memory/entities/:id",status="404"}')).toBe(1);
    expect(text).toContain('route="unmatched"');
    expect(text).not.toContain(OWNER);
    expect(text).not.toContain('secret-query-text');
  });

  it("reports the node's state: resident owners and bytes, the LMDB map and its commits, Temporal, the event loop", async () => {
    const text: string = (await scrape()).body;
    expect(sample(text, 'engram_resident_owners')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'engram_resident_bytes')).toBeGreaterThan(0);
    expect(sample(text, 'engram_lmdb_map_size_bytes')).toBeGreaterThan(0);
    expect(sample(text, 'engram_lmdb_used_bytes')).toBeGreaterThan(0);
    expect(sample(text, 'engram_lmdb_commit_seconds_count')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'engram_temporal_ready')).toBe(0); // the test service runs with TEMPORAL_ENABLED=false
    expect(sample(text, 'engram_owner_evictions_total')).toBe(0);
    for (const outcome of ['used', 'changed', 'failed']) expect(sample(text, 'engram_query_halves_total', `{outcome="${outcome}"}`)).toBe(0);
    expect(text).toContain('engram_event_loop_delay_p99_seconds');
    expect(text).toContain('nodejs_eventloop_lag_p99_seconds');
    expect(text).toContain('engram_embed_seconds_count');
    expect(text).toContain('engram_jobs_total');
  });

  it("keeps the event loop's delay as a histogram: a loop blocked for 80 ms shows as a sample above 50 ms", async () => {
    const lateBefore = lateSamples((await scrape()).body);
    for (const until = performance.now() + 80; performance.now() < until; );
    await new Promise((resolve) => setTimeout(resolve, 30));
    const text: string = (await scrape()).body;
    expect(lateSamples(text)).toBeGreaterThan(lateBefore);
    expect(sample(text, 'engram_event_loop_delay_seconds_count')).toBeGreaterThan(1);
  });

  it("counts a durable job's outcome: a consolidation refused while Temporal is off is one failed", async () => {
    expect((await svc.call('POST', `/v1/memory/consolidate?entity_id=${OWNER}`)).status).toBe(503);
    const text: string = (await scrape()).body;
    expect(sample(text, 'engram_jobs_total', '{job="consolidate",outcome="failed"}')).toBe(1);
    expect(sample(text, 'engram_jobs_total', '{job="consolidate",outcome="completed"}')).toBe(0);
  });

  it('counts the texts embedded when a document is stored', async () => {
    const before = sample((await scrape()).body, 'engram_embed_seconds_count') ?? 0;
    expect((await svc.call('POST', `/v1/documents?entity_id=${OWNER}`, { body: { content: 'a text to embed' } })).status).toBe(201);
    expect(sample((await scrape()).body, 'engram_embed_seconds_count')).toBeGreaterThan(before);
  });

  it('has every metric the Grafana dashboard (docs/grafana-dashboard.json) charts', async () => {
    const dashboard = readFileSync(new URL('../../docs/grafana-dashboard.json', import.meta.url), 'utf8');
    const charted = new Set([...dashboard.matchAll(/\b((?:engram|nodejs)_[a-z0-9_]+)/g)].map((m) => m[1]!));
    expect(charted.size).toBeGreaterThan(10);
    const text: string = (await scrape()).body;
    for (const name of charted) expect(text, name).toMatch(new RegExp(`^${name}(\\{| )`, 'm'));
  });

  it('answers 401 without METRICS_KEY, an API key included, and 405 to another method', async () => {
    expect((await svc.call('GET', '/metrics', { key: null })).status).toBe(401);
    const withApiKey = await svc.call('GET', '/metrics', { key: KEYS.acme });
    expect(withApiKey.status).toBe(401);
    expect(withApiKey.body.error).toBe('GET /metrics takes Authorization: Bearer <METRICS_KEY>');
    expect((await svc.call('POST', '/metrics', { key: METRICS_KEY, body: {} })).status).toBe(405);
  });
});

describe('metrics off (the default)', () => {
  it('keeps none: /metrics is an unknown path', async () => {
    const svc = await startTestService();
    try {
      expect((await svc.call('GET', '/metrics', { key: KEYS.acme })).status).toBe(404);
      expect(svc.deps.metrics).toBeUndefined();
    } finally {
      await svc.stop();
    }
  });
});

describe('METRICS_PORT', () => {
  let svc: SocketTestService;
  beforeAll(async () => {
    // A real port: the metrics have a listener of their own beside the API's.
    svc = await startTestService({ socket: true, env: { METRICS_PORT: '0' } });
  });
  afterAll(async () => {
    await svc.stop();
  });

  it('serves GET /metrics without a key on its own listener, and nothing else there; the API port keeps no /metrics', async () => {
    expect(svc.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    await svc.call('GET', `/v1/memory/facts?entity_id=${OWNER}`);
    const res = await fetch(svc.metricsUrl!);
    expect(res.status).toBe(200);
    expect(sample(await res.text(), 'engram_http_request_duration_seconds_count', '{method="GET",route="/v1/memory/facts",status="200"}')).toBe(1);
    expect((await fetch(svc.metricsUrl!.replace('/metrics', '/v1/memory/facts'))).status).toBe(404);
    expect((await svc.call('GET', '/metrics', { key: KEYS.acme })).status).toBe(404);
  });
});

describe('a request whose client went away before the answer', () => {
  const { log, entries } = memoryLog();
  let svc: SocketTestService;
  beforeAll(async () => {
    // A real port: the client must be able to hang up mid-request.
    svc = await startTestService({ socket: true, env: { METRICS_PORT: '0' }, log });
  });
  afterAll(async () => {
    await svc.stop();
  });

  it('is counted and logged as 499 (client closed request), not as the 404 no route ever sent', async () => {
    const requestId = `hung-up-${randomUUID()}`;
    // Half of the body announced, then the socket closed: the route is still reading it when the client leaves.
    const req = request(`${svc.url}/v1/memory/facts?entity_id=${OWNER}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${KEYS.acme}`,
        'content-type': 'application/json',
        'content-length': '200',
        'x-request-id': requestId,
        expect: '100-continue',
      },
    });
    req.on('error', () => {});
    // Node's server answers 100 Continue as it hands the request to the app, which routes it in that same
    // turn of this process's event loop (the service runs in it) and then waits for the body: once the
    // client has the 100, the route has matched and is reading. No fixed wait, so no race on a slow machine.
    const continued = once(req, 'continue');
    req.flushHeaders();
    await continued;
    req.write('{"predicate":"city",');
    req.destroy();

    const line = await vi.waitFor(() => {
      const found = entries().find((e) => e.requestId === requestId);
      if (!found) throw new Error('no request line yet');
      return found;
    });
    expect(line).toMatchObject({ msg: 'request', method: 'POST', route: '/v1/memory/facts', status: 499, aborted: true });
    const text = await (await fetch(svc.metricsUrl!)).text();
    expect(sample(text, 'engram_http_request_duration_seconds_count', '{method="POST",route="/v1/memory/facts",status="499"}')).toBe(1);
    expect(text).not.toContain('route="/v1/memory/facts",status="404"');
    expect((await svc.call('GET', `/v1/memory/facts?entity_id=${OWNER}`)).body.count).toBe(0);
  });
});

/** Samples of the loop-delay histogram above 50 ms. */
function lateSamples(text: string): number {
  const below = (le: string) => sample(text, 'engram_event_loop_delay_seconds_bucket', `{le="${le}"}`) ?? Number.NaN;
  return below('+Inf') - below('0.05');
}
