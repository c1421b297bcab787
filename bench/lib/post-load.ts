import autocannon from 'autocannon';
import { cpuSeconds, type BenchService } from './processes.js';

/** What one load of POSTs measured; CPU per request, the service's (every thread) and the load generator's (this process). */
export interface PostLoad {
  requests: number;
  rps: number;
  p99: number;
  serviceUs: number;
  clientUs: number;
  /** Requests answered outside 2xx, failed or timed out. */
  errors: number;
}

/**
 * POSTs to the service with `connections` requests in flight for `seconds`, as bench:facts does (autocannon,
 * whose CPU per request is a fraction of `fetch`'s): `request(n)` gives the n-th request's path and body.
 */
export async function postLoad(service: BenchService, apiKey: string, connections: number, seconds: number, request: (n: number) => { path: string; body: string }): Promise<PostLoad> {
  let n = 0;
  const serviceBefore = cpuSeconds(service.child);
  const clientBefore = process.cpuUsage();
  const result = await autocannon({
    url: service.url,
    connections,
    duration: seconds,
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    requests: [{ method: 'POST', setupRequest: (req) => ({ ...req, ...request(n++) }) }],
  });
  const client = process.cpuUsage(clientBefore);
  const requests = Math.max(1, result.requests.total);
  return {
    requests: result.requests.total,
    rps: result.requests.average,
    p99: result.latency.p99,
    serviceUs: ((cpuSeconds(service.child) - serviceBefore) * 1e6) / requests,
    clientUs: (client.user + client.system) / requests,
    errors: result.non2xx + result.errors + result.timeouts,
  };
}
