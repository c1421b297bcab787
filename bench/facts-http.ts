/**
 * Fact assertion and active-fact listing over HTTP at 50 concurrent connections, beside a bare Koa
 * handler and beside the bare handler plus a raw LMDB transaction of the same size (the storage floor),
 * measured in the same run (issue 2). Run: `npx tsx bench/facts-http.ts [seconds]`.
 * Target: POST /v1/memory/facts ≥ 40% of the bare handler's POST throughput, p99 < 25 ms.
 */
import autocannon from 'autocannon';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { plainUrl, spawnEngram, spawnServer, stopChild } from './lib/processes.js';

const SECONDS = Number(process.argv[2] ?? 10);
const CONNECTIONS = 50;
const KEY = 'sk_bench_0123456789abcdef';
const OWNERS = 100;

interface Figure {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

async function load(name: string, options: autocannon.Options): Promise<Figure> {
  const result = await autocannon({ connections: CONNECTIONS, duration: SECONDS, ...options });
  const bad = result.non2xx + result.errors + result.timeouts;
  return { name, rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, errors: bad };
}

function factBody(i: number): string {
  return JSON.stringify({ predicate: `p${i % 20}`, value: `value-${i}`, subject_type: 'owner' });
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'engram-bench-'));
  const bare = await spawnServer('bench/servers/bare-koa.ts', {}, plainUrl);
  const bareLmdb = await spawnServer('bench/servers/bare-koa-lmdb.ts', {}, plainUrl);
  const engram = await spawnEngram(join(dataDir, 'data'), KEY, dataDir);
  // A fresh object per scenario: autocannon adds content-length to the headers object it is given.
  const headers = () => ({ authorization: `Bearer ${KEY}`, 'content-type': 'application/json' });
  const getHeaders = () => ({ authorization: `Bearer ${KEY}` });
  try {
    let i = 0;
    const figures: Figure[] = [];
    figures.push(await load('bare Koa POST (baseline)', { url: `${bare.url}/`, method: 'POST', headers: headers(), body: factBody(0) }));
    figures.push(await load('bare Koa + raw LMDB txn POST (storage floor)', { url: `${bareLmdb.url}/`, method: 'POST', headers: headers(), body: factBody(0) }));
    figures.push(
      await load('POST /v1/memory/facts', {
        url: engram.url,
        requests: [{ method: 'POST', setupRequest: (req) => ({ ...req, path: `/v1/memory/facts?entity_id=owner-${i % OWNERS}`, headers: headers(), body: factBody(i++) }) }],
      }),
    );
    figures.push(await load('bare Koa GET (baseline)', { url: `${bare.url}/`, headers: getHeaders() }));
    let j = 0;
    figures.push(
      await load('GET /v1/memory/facts (active, ≤100)', {
        url: engram.url,
        requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, path: `/v1/memory/facts?entity_id=owner-${j++ % OWNERS}`, headers: getHeaders() }) }],
      }),
    );
    report(figures, i);
  } finally {
    await Promise.all([stopChild(bare.child), stopChild(bareLmdb.child), engram.stop()]);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function report(figures: Figure[], asserted: number): void {
  const [barePost, floor, post, bareGet, get] = figures as [Figure, Figure, Figure, Figure, Figure];
  const row = (f: Figure, base: Figure) =>
    `| ${f.name} | ${f.rps.toFixed(0)} | ${f.p50.toFixed(1)} | ${f.p99.toFixed(1)} | ${(f.rps / base.rps).toFixed(2)} | ${f.errors} |`;
  console.log(`\nfacts-http: ${CONNECTIONS} connections, ${SECONDS}s per scenario, ${OWNERS} owners, ${asserted} facts asserted`);
  console.log('| scenario | req/s | p50 ms | p99 ms | ratio to bare | errors |');
  console.log('|---|---|---|---|---|---|');
  console.log(row(barePost, barePost));
  console.log(row(floor, barePost));
  console.log(row(post, barePost));
  console.log(row(bareGet, bareGet));
  console.log(row(get, bareGet));
  console.log(`\nassert throughput ratio ${(post.rps / barePost.rps).toFixed(2)} of bare Koa (target ≥ 0.40), ${(post.rps / floor.rps).toFixed(2)} of the storage floor; p99 ${post.p99} ms (target < 25 ms)`);
}

await main();
