import { Agent, request } from 'node:http';

/**
 * GETs over node:http with a keep-alive agent of `clients` sockets: a client that leaves the cores to the
 * server it measures. On this 2-core machine `fetch` (undici's WHATWG layer) took 256-479 µs of the
 * benchmark's CPU per request against 72-167 µs for this (measured 2026-12-02 against bench/servers/
 * bare-lmdb-owners.ts), and at 16 clients its CPU raised the raw baseline's own p99 from ~4 to ~12 ms.
 * Resolves when the body has arrived; rejects on a status of 300 or more, with the body's start.
 */
export function leanGetter(clients: number, headers: Record<string, string> = {}): { get(url: string): Promise<void>; close(): void } {
  const agent = new Agent({ keepAlive: true, maxSockets: clients });
  const get = (url: string) =>
    new Promise<void>((resolve, reject) => {
      const req = request(url, { agent, headers }, (res) => {
        const status = res.statusCode ?? 0;
        const chunks: Buffer[] = [];
        if (status >= 300) res.on('data', (chunk: Buffer) => chunks.push(chunk));
        else res.resume();
        res.on('error', reject);
        res.on('end', () => (status >= 300 ? reject(new Error(`${url}: ${status} ${Buffer.concat(chunks).toString().slice(0, 300)}`)) : resolve()));
      });
      req.on('error', reject);
      req.end();
    });
  return { get, close: () => agent.destroy() };
}
