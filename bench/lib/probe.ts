import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';

/** Latency figures of one series, in ms. */
export interface Percentiles {
  n: number;
  p50: number;
  p99: number;
  max: number;
}

export function percentiles(samples: number[]): Percentiles {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN;
  return { n: sorted.length, p50: at(0.5), p99: at(0.99), max: sorted.at(-1) ?? NaN };
}

export const showPercentiles = (p: Percentiles) => `p50 ${p.p50.toFixed(1)} ms, p99 ${p.p99.toFixed(1)} ms, max ${p.max.toFixed(1)} ms (${p.n} requests)`;

/**
 * A probe: one client in its own thread (so the benchmark's own work never delays it) sending GET `path`
 * one request after another, 10 ms apart, until stopped; resolves with each request's latency.
 */
export function startProbe(url: string, key: string): { stop(): Promise<number[]> } {
  const worker = new Worker(PROBE_SOURCE, { eval: true, workerData: { url, key } });
  const done = new Promise<number[]>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  return {
    stop: async () => {
      worker.postMessage('stop');
      const samples = await done;
      await worker.terminate();
      return samples;
    },
  };
}

const PROBE_SOURCE = `
const { workerData, parentPort } = require('node:worker_threads');
const { performance } = require('node:perf_hooks');
let stopped = false;
parentPort.on('message', () => (stopped = true));
(async () => {
  const samples = [];
  while (!stopped) {
    const t = performance.now();
    const res = await fetch(workerData.url, { headers: { authorization: 'Bearer ' + workerData.key } });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error('probe answered ' + res.status);
    samples.push(performance.now() - t);
    await new Promise((r) => setTimeout(r, 10));
  }
  parentPort.postMessage(samples);
})();
`;

/**
 * Documents made by `body(i)` POSTed at a fixed rate (`perSecond`, at most `inFlight` at once), so that two
 * runs offer the same load however fast the service answers; counts the acknowledged ones. Requests in flight
 * when the service is killed fail and are not counted.
 */
export function startIngest(
  url: (i: number) => string,
  key: string,
  rate: { perSecond: number; inFlight: number },
  body: (i: number) => string,
): { stop(): Promise<number>; readonly acknowledged: number } {
  let sent = 0;
  let inFlight = 0;
  let acknowledged = 0;
  const started = performance.now();
  const running = new Set<Promise<void>>();
  const send = async (i: number) => {
    try {
      const res = await fetch(url(i), { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: body(i) });
      await res.arrayBuffer();
      if (res.status === 201) acknowledged++;
    } catch {
      // The service was killed with this request in flight: never acknowledged.
    }
  };
  const timer = setInterval(() => {
    const due = Math.floor(((performance.now() - started) / 1000) * rate.perSecond);
    while (sent < due && inFlight < rate.inFlight) {
      inFlight++;
      const request = send(sent++).finally(() => {
        inFlight--;
        running.delete(request);
      });
      running.add(request);
    }
  }, 5);
  return {
    get acknowledged() {
      return acknowledged;
    },
    stop: async () => {
      clearInterval(timer);
      await Promise.all(running);
      return acknowledged;
    },
  };
}
