/**
 * Fact assertions counted in machine instructions rather than timed: each server runs under valgrind's
 * callgrind, is warmed up with its optimising compiler at work, then counts the instructions (every
 * thread's: the main thread, LMDB's commits in libuv's pool, V8's compiler and GC helpers) of a fixed
 * number of requests. The storage floor and bare Koa of `bench:facts` are counted the same way in the same
 * run, and the service's count is printed as a ratio to them.
 *
 * Why: `bench:facts` times requests on a shared, noisy machine, where a round moves the ratio by ±0.05 and
 * a change of 2-3% cannot be told from the noise. An instruction count hardly depends on what else the
 * machine runs: counts of one build vary by ~4-6% between runs (when the optimising compiler finishes,
 * when GC runs, how requests fall into commits), so builds are compared in interleaved runs, several of
 * each. The loop lmdb-js's commit thread spins in under valgrind, which runs one thread at a time, is
 * taken out of every count and printed apart (bench/lib/callgrind.ts): it was up to ~115,000 instructions
 * an assertion, depending on when valgrind switched threads, and costs nothing measurable in a native run.
 * It is not a time: cache misses, system calls (the kernel is not counted) and the machine's speed
 * do not show in it, so it says which code costs more, and `bench:facts` says what the machine serves.
 *
 * Run: `npm run bench:instructions -- [requests] [warm-up requests]` (builds first; needs valgrind, on
 * every machine of this project). Takes ~3 minutes: valgrind runs node many times slower.
 */
import autocannon from 'autocannon';
import { execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { countDump } from './lib/callgrind.js';
import { factRequest } from './lib/fact-stream.js';
import { plainUrl, requireTool, spawnEngram, spawnServer, stopChild } from './lib/processes.js';

const COUNTED = Number(process.argv[2] ?? 5000);
/** Enough for the hot paths to be optimised: with 4,000, a run counted 20-40% more, much of it TurboFan at work. */
const WARM_UP = Number(process.argv[3] ?? 10000);
const CONNECTIONS = 16;
const OWNERS = 100;
const KEY = 'sk_bench_0123456789abcdef';

interface Counted {
  name: string;
  /** Less the commit thread's spin (bench/lib/callgrind.ts). */
  perRequest: number;
  /** The spin taken out: an artefact of valgrind running one thread at a time. */
  spinPerRequest: number;
  /** The functions with the most instructions, as callgrind_annotate prints them. */
  top: string[];
}

/** The service's request stream (bench:facts): a new owner and value per request; the bare servers ignore the path. */
function load(url: string, amount: number): Promise<autocannon.Result> {
  let i = 0;
  return autocannon({
    url,
    connections: CONNECTIONS,
    amount,
    timeout: 120,
    requests: [
      {
        method: 'POST',
        setupRequest: (req) => ({
          ...req,
          ...factRequest(i++, OWNERS),
          headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        }),
      },
    ],
  });
}

async function count(name: string, start: (launcher: string[]) => Promise<{ url: string; child: ChildProcess }>): Promise<Counted> {
  const dir = mkdtempSync(join(tmpdir(), 'engram-instructions-'));
  // Counting starts switched off (node runs ~5x faster so), and only the counted requests are dumped.
  const launcher = ['valgrind', '-q', '--tool=callgrind', '--instr-atstart=no', '--smc-check=all-non-file', `--callgrind-out-file=${join(dir, 'cg.%p')}`];
  const { url, child } = await start(launcher);
  try {
    const warm = await load(url, WARM_UP);
    const pid = String(child.pid);
    execFileSync('callgrind_control', ['-i', 'on', pid], { stdio: 'ignore' });
    const counted = await load(url, COUNTED);
    execFileSync('callgrind_control', ['-d', pid], { stdio: 'ignore' });
    const failed = warm.non2xx + warm.errors + counted.non2xx + counted.errors;
    if (failed > 0) throw new Error(`${name}: ${failed} requests failed`);
    const dumps = readdirSync(dir).filter((f) => /^cg\.\d+\.\d+$/.test(f));
    let total = 0;
    let spin = 0;
    for (const dump of dumps) {
      const counts = countDump(readFileSync(join(dir, dump), 'utf8'));
      total += counts.total;
      spin += counts.commitSpin;
    }
    const annotated = dumps.length === 1 ? execFileSync('callgrind_annotate', [join(dir, dumps[0]!)], { encoding: 'utf8', maxBuffer: 64 << 20 }) : '';
    const top = annotated
      .split('\n')
      .filter((line) => /^\s*[\d,]+ \(\s*[\d.]+%\)\s+\S/.test(line) && !line.includes('PROGRAM TOTALS'))
      .slice(0, 12)
      .map((line) => line.replace(/\s+\[[^\]]*\]\s*$/, '').slice(0, 150));
    return { name, perRequest: (total - spin) / counted.requests.total, spinPerRequest: spin / counted.requests.total, top };
  } finally {
    child.kill('SIGKILL');
    await stopChild(child);
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  requireTool('valgrind', 'bench:instructions needs valgrind (Debian package valgrind)');
  const dataDir = mkdtempSync(join(tmpdir(), 'engram-bench-'));
  try {
    const bare = await count('bare Koa POST (baseline)', (launcher) => spawnServer('bench/servers/bare-koa.ts', {}, plainUrl, [], launcher));
    const floor = await count('bare Koa + raw LMDB puts POST (storage floor)', (launcher) => spawnServer('bench/servers/bare-koa-lmdb.ts', {}, plainUrl, [], launcher));
    const service = await count('POST /v1/memory/facts', (launcher) =>
      spawnEngram(join(dataDir, 'data'), KEY, dataDir, { METRICS_KEY: 'bench_metrics_key_0123456789', CONTENT_ENCRYPTION: 'on' }, [], launcher),
    );
    console.log(`\ninstructions: ${CONNECTIONS} connections, ${WARM_UP} requests of warm-up, then ${COUNTED} counted (every thread of the server, valgrind's callgrind)`);
    console.log("| server | instructions per request | the storage floor's count / this one | taken out: the commit thread's spin under valgrind |");
    console.log('|---|---|---|---|');
    const round = (n: number) => Math.round(n).toLocaleString('en-US');
    for (const c of [bare, floor, service]) console.log(`| ${c.name} | ${round(c.perRequest)} | ${(floor.perRequest / c.perRequest).toFixed(2)} | ${round(c.spinPerRequest)} |`);
    console.log(`\nthe service's assertion takes ${(service.perRequest / floor.perRequest).toFixed(2)}x the instructions of the storage floor's (the throughput target: ≥ 0.60 of its requests a second)`);
    if (service.top.length > 0) console.log(`\nthe service's functions with the most instructions (JIT-compiled JavaScript shows as an address):\n${service.top.join('\n')}`);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
