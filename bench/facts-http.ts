/**
 * Fact assertion and active-fact listing over HTTP at 50 concurrent connections, beside a bare Koa
 * handler and beside the bare handler plus the raw LMDB writes of an assertion (the storage floor),
 * measured in the same run (issue 2). Every server runs its built JavaScript with plain node.
 * Run: `npm run bench:facts -- [seconds] [rounds]`. The scenarios run in interleaved rounds and each
 * figure is the median over rounds, because this machine is shared and noisy.
 * Target: POST /v1/memory/facts ≥ 40% of the bare handler's POST throughput, p99 < 25 ms.
 */
import autocannon from 'autocannon';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { plainUrl, spawnEngram, spawnServer, stopChild } from './lib/processes.js';

const SECONDS = Number(process.argv[2] ?? 5);
const ROUNDS = Number(process.argv[3] ?? 3);
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
  const headers = () => ({ authorization: `Bearer ${KEY}`, 'content-type': 'application/json' });
  const getHeaders = () => ({ authorization: `Bearer ${KEY}` });
  try {
    let i = 0;
    let j = 0;
    // Options are built afresh per run: autocannon adds content-length to the headers object it is given.
    const scenarios: [string, () => autocannon.Options][] = [
      ['bare Koa POST (baseline)', () => ({ url: `${bare.url}/`, method: 'POST', headers: headers(), body: factBody(0) })],
      ['bare Koa + raw LMDB puts POST (storage floor)', () => ({ url: `${bareLmdb.url}/`, method: 'POST', headers: headers(), body: factBody(0) })],
      [
        'POST /v1/memory/facts',
        () => ({
          url: engram.url,
          requests: [{ method: 'POST', setupRequest: (req) => ({ ...req, path: `/v1/memory/facts?entity_id=owner-${i % OWNERS}`, headers: headers(), body: factBody(i++) }) }],
        }),
      ],
      ['bare Koa GET (baseline)', () => ({ url: `${bare.url}/`, headers: getHeaders() })],
      [
        'GET /v1/memory/facts (active, ≤100)',
        () => ({
          url: engram.url,
          requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, path: `/v1/memory/facts?entity_id=owner-${j++ % OWNERS}`, headers: getHeaders() }) }],
        }),
      ],
    ];
    const rounds: Figure[][] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const figures: Figure[] = [];
      for (const [name, options] of scenarios) figures.push(await load(name, options()));
      rounds.push(figures);
      const [barePost, , post] = figures as [Figure, Figure, Figure];
      console.log(`round ${round + 1}: assert ${post.rps.toFixed(0)} req/s, bare ${barePost.rps.toFixed(0)} req/s, ratio ${(post.rps / barePost.rps).toFixed(2)}, p99 ${post.p99} ms`);
    }
    report(scenarios.map((_, k) => median(rounds.map((figures) => figures[k]!))), i);
  } finally {
    await Promise.all([stopChild(bare.child), stopChild(bareLmdb.child), engram.stop()]);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The per-field median of one scenario's rounds. */
function median(figures: Figure[]): Figure {
  const mid = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  return {
    name: figures[0]!.name,
    rps: mid(figures.map((f) => f.rps)),
    p50: mid(figures.map((f) => f.p50)),
    p99: mid(figures.map((f) => f.p99)),
    errors: figures.reduce((sum, f) => sum + f.errors, 0),
  };
}

function report(figures: Figure[], asserted: number): void {
  const [barePost, floor, post, bareGet, get] = figures as [Figure, Figure, Figure, Figure, Figure];
  const row = (f: Figure, base: Figure) =>
    `| ${f.name} | ${f.rps.toFixed(0)} | ${f.p50.toFixed(1)} | ${f.p99.toFixed(1)} | ${(f.rps / base.rps).toFixed(2)} | ${f.errors} |`;
  console.log(`\nfacts-http: ${CONNECTIONS} connections, ${SECONDS}s per scenario, medians of ${ROUNDS} rounds, ${OWNERS} owners, ${asserted} facts asserted`);
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
