/**
 * Where a fact assertion's CPU goes, sampled natively: `perf record -e cpu-clock` on the service and on the
 * storage floor of bench:facts, each under the same load in the same run, printed in µs per request by
 * part (the event loop and what runs on it, LMDB's commit thread, V8's helper threads) and by function.
 *
 * Why beside bench:facts and bench:instructions: the machines have no hardware counters, but the kernel's
 * clock samples every thread of a process, native code and, with `node --perf-basic-prof`, JIT-compiled
 * JavaScript by name. A count of instructions misses what makes an instruction slow (a cache miss costs
 * hundreds of them); samples of time do not, and a per-request share hardly depends on the throughput the
 * noisy machine allowed that run. Measured this way on 2026-12-02: 224 µs of CPU per assertion against the
 * floor's 120, the gap on the event loop (docs/performance-facts.md).
 *
 * Run: `npm run bench:profile -- [seconds] [facts|batch]` (builds first; needs perf, Debian package
 * linux-perf). `facts`: single assertions at 50 connections over 100 owners, the service beside the floor;
 * `batch`: `POST /v1/memory/batch` with 100 assertions per request at 16 connections over 50 owners, the
 * service alone, per fact (its floor, raw lmdb-js in bench:batch's own process, has no server to sample). Takes ~1 minute.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { batchBody, factRequest } from './lib/fact-stream.js';
import { postLoad } from './lib/post-load.js';
import { plainUrl, requireTool, spawnEngram, spawnServer, stopChild, type BenchService } from './lib/processes.js';

const SECONDS = Number(process.argv[2] ?? 10);
const SCENARIO = process.argv[3] ?? 'facts';
const WARMUP_SECONDS = 5;
const HZ = 1999;
const KEY = 'sk_bench_0123456789abcdef';

/** Parts of a request's CPU, by the function every sample under them passes through (inclusive). */
const PARTS: Array<[string, string]> = [
  ['the event loop', 'uv__io_poll'],
  ['  HTTP parsing and the synchronous part of each request', 'node::(anonymous namespace)::Parser::Execute'],
  ['  promise reactions (microtasks)', 'Builtins_RunMicrotasks'],
  ['  commits and pool work reaching JavaScript', 'uv__work_done'],
  ["  lmdb-js's transaction callbacks (a batch decides and puts in one)", 'v8impl::(anonymous namespace)::ThreadSafeFunction::AsyncCb'],
  ["LMDB's commit thread", 'WriteWorker::Write'],
  ['  fdatasync', 'fdatasync'],
  ["V8's helper threads (GC, compiler)", 'node::(anonymous namespace)::PlatformWorkerThread'],
];

interface Load {
  name: string;
  service: BenchService;
  connections: number;
  /** Facts per request. */
  facts: number;
  request: (n: number) => { path: string; body: string };
}

interface Profile {
  name: string;
  /** µs of CPU per unit (request or fact) in all. */
  total: number;
  parts: Map<string, number>;
  /** The functions with the most samples of their own, µs per unit. */
  top: Array<[string, number]>;
  units: number;
  unitName: string;
}

async function profile(load: Load): Promise<Profile> {
  await postLoad(load.service, KEY, load.connections, WARMUP_SECONDS, load.request);
  const data = join(mkdtempSync(join(tmpdir(), 'engram-profile-')), 'perf.data');
  const perf = spawn('perf', ['record', '-q', '-e', 'cpu-clock', '-F', String(HZ), '-g', '-p', String(load.service.child.pid), '-o', data, '--', 'sleep', String(SECONDS)], { stdio: 'ignore' });
  const exited = new Promise((resolve) => perf.once('exit', resolve));
  // The load outlasts the recording by a second, so every sample is taken under load.
  const measured = await postLoad(load.service, KEY, load.connections, SECONDS + 1, load.request);
  const code = await exited;
  try {
    if (measured.errors > 0) throw new Error(`${load.name}: ${measured.errors} requests failed`);
    if (code !== 0 || !existsSync(data)) throw new Error(`perf record exited with ${String(code)}: may this user sample other processes (kernel.perf_event_paranoid)?`);
    const units = measured.rps * SECONDS * load.facts;
    const usPerSample = 1e6 / HZ / units;
    const own = samplesBySymbol(data, false);
    const samples = [...own.values()].reduce((a, b) => a + b, 0);
    const inclusive = samplesBySymbol(data, true);
    const total = samples * usPerSample;
    const parts = new Map(PARTS.map(([label, symbol]) => [label, ((inclusive.get(symbol) ?? 0) / 100) * samples * usPerSample]));
    const top = [...own].sort((a, b) => b[1] - a[1]).slice(0, 25).map(([symbol, n]): [string, number] => [symbol, n * usPerSample]);
    return { name: load.name, total, parts, top, units, unitName: load.facts === 1 ? 'request' : 'fact' };
  } finally {
    rmSync(join(data, '..'), { recursive: true, force: true });
  }
}

/**
 * From `perf report`, per symbol: the samples of its own, or with `children` the percentage of all samples
 * whose stack passes through it.
 */
function samplesBySymbol(data: string, children: boolean): Map<string, number> {
  const args = ['report', '-i', data, '--stdio', '-n', '-g', 'none', '--sort', 'symbol', children ? '--children' : '--no-children'];
  const text = execFileSync('perf', args, { encoding: 'utf8', maxBuffer: 256 << 20, stdio: ['ignore', 'pipe', 'ignore'] });
  const samples = new Map<string, number>();
  for (const line of text.split('\n')) {
    // "  12.34%   1.23%   456  [.] symbol   -   -" with --children (its first figure taken), "  1.23%   456  [.] symbol" without;
    // a symbol holds single spaces at most (C++ signatures), the columns perf pads it with more.
    const m = (children ? /^\s*([\d.]+)%\s+[\d.]+%\s+\d+\s+\[.\]\s+(.+?)(?:\s{2,}.*)?$/ : /^\s*[\d.]+%\s+(\d+)\s+\[.\]\s+(.+?)(?:\s{2,}.*)?$/).exec(line);
    if (!m) continue;
    const symbol = m[2]!.replace(/^JS:/, '').replace(/ \(\/tmp\/perf-\d+\.map\)$/, '');
    samples.set(symbol, (samples.get(symbol) ?? 0) + Number(m[1]));
  }
  return samples;
}

function print(profiles: Profile[]): void {
  const unit = profiles[0]!.unitName;
  console.log(`\nCPU per ${unit}, µs (perf record -e cpu-clock at ${HZ} Hz for ${SECONDS} s under load, every thread):`);
  // Beside a baseline (the storage floor, last), each part's ratio to it: the headline is the first row's.
  const baseline = profiles.length > 1 ? profiles.at(-1)! : null;
  const ratio = (us: number, base: number | undefined) => (baseline ? ` | ${base ? (us / base).toFixed(2) : '-'}` : '');
  console.log(`| part | ${profiles.map((p) => p.name).join(' | ')}${baseline ? ` | ${profiles[0]!.name} / ${baseline.name}` : ''} |`);
  console.log(`|---|${profiles.map(() => '---').join('|')}${baseline ? '|---' : ''}|`);
  console.log(`| all | ${profiles.map((p) => p.total.toFixed(1)).join(' | ')}${ratio(profiles[0]!.total, baseline?.total)} |`);
  for (const [label] of PARTS) {
    console.log(`| ${label} | ${profiles.map((p) => p.parts.get(label)!.toFixed(1)).join(' | ')}${ratio(profiles[0]!.parts.get(label)!, baseline?.parts.get(label))} |`);
  }
  for (const p of profiles) {
    console.log(`\n${p.name}: the functions with the most samples of their own, µs per ${unit} (${Math.round(p.units).toLocaleString('en-US')} ${unit}s sampled)`);
    for (const [symbol, us] of p.top) console.log(`${us.toFixed(2).padStart(7)}  ${symbol.slice(0, 140)}`);
  }
}

async function main(): Promise<void> {
  requireTool('perf', 'bench:profile needs perf (Debian package linux-perf)');
  const dataDir = mkdtempSync(join(tmpdir(), 'engram-bench-'));
  const started: ChildProcess[] = [];
  try {
    const engram = await spawnEngram(join(dataDir, 'data'), KEY, dataDir, { METRICS_KEY: 'bench_metrics_key_0123456789', CONTENT_ENCRYPTION: 'on' }, ['--perf-basic-prof']);
    started.push(engram.child);
    if (SCENARIO === 'batch') {
      const body = batchBody(100);
      print([await profile({ name: 'POST /v1/memory/batch', service: engram, connections: 16, facts: 100, request: (n) => ({ path: `/v1/memory/batch?entity_id=o${n % 50}`, body }) })]);
      return;
    }
    const floorServer = await spawnServer('bench/servers/bare-koa-lmdb.ts', {}, plainUrl, ['--perf-basic-prof']);
    started.push(floorServer.child);
    const floor: BenchService = { ...floorServer, stop: () => stopChild(floorServer.child) };
    const profiles = [
      await profile({ name: 'POST /v1/memory/facts', service: engram, connections: 50, facts: 1, request: factRequest }),
      await profile({ name: 'storage floor', service: floor, connections: 50, facts: 1, request: factRequest }),
    ];
    print(profiles);
  } finally {
    for (const child of started) {
      child.kill('SIGKILL');
      await stopChild(child);
      // node --perf-basic-prof's map of JIT-compiled code, which perf read.
      rmSync(join('/tmp', `perf-${child.pid}.map`), { force: true });
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
