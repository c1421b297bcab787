/**
 * Many small owners (issue 16, "A million owners"): writes OWNERS owners (1 entity and 3 facts in one
 * `POST /v1/memory/batch`, then 1 document), 16 owners in flight, against the service as `npm start` runs
 * it (EMBEDDER=hash, Temporal off); prints the service's anonymous memory (RssAnon) and the LMDB files'
 * size as it goes, and the event loop's delay during the writes: its p99 over the whole phase, from the
 * service's loop-delay histogram read at both ends, and the p99 of each 1 s window (scraped each second
 * from GET /metrics). Then cold reads, `GET /v1/memory/facts` of owners no request of the
 * running process has touched, at 1 and at 16 clients: right after a restart (the first 10 s), and on the
 * running node after that, and the latter's owners read a second time (which makes an owner resident: a
 * first read is answered from LMDB alone, src/actors/registry.ts `factsFor`) and a third (resident). Beside each figure, the same
 * reads against a bare Node HTTP handler over a raw lmdb-js environment holding the same number of owners,
 * started (and restarted) the same way. The reads go through bench/lib/lean-get.ts (node:http, keep-alive):
 * `fetch` took 2-3 times the CPU per request, on the cores the service shares with this benchmark.
 * Run: `npm run bench:owners -- [owners]` (builds first; default 1,000,000: a long run, outside CI).
 * SERVICE_NODE_ARGS adds node flags to the service, after `npm start`'s own (`--heapsnapshot-signal=SIGUSR2` to diff its heap);
 * PROFILE_DIR writes a CPU profile of each start of it there.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, statSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { leanGetter } from './lib/lean-get.js';
import { percentiles, type Percentiles } from './lib/probe.js';
import { quantileBetween, readBuckets, type Buckets } from './lib/prom-histogram.js';
import { plainUrl, spawnEngram, spawnServer, stopChild, type BenchService } from './lib/processes.js';

const KEY = 'sk_bench_owners_0123456789abcdef';
const METRICS_KEY = 'metrics_bench_owners_0123456789';
const OWNERS = Number(process.argv[2] ?? 1_000_000);
const WRITERS = 16;
/** Memory and map size are printed this often (every 100k owners, or ten times in a smaller run). */
const EVERY = Math.min(100_000, Math.max(1, Math.floor(OWNERS / 10)));
const PHASE_MS = 10_000;
const started = performance.now();
const elapsed = () => `${((performance.now() - started) / 1000).toFixed(0)} s`;

interface Target {
  name: string;
  /** Where it keeps its data. */
  dataDir: string;
  /** The URL that reads owner `i`'s facts. */
  read(i: number): string;
  pid(): number;
  restart(): Promise<void>;
}

const mb = (bytes: number) => `${(bytes / 1024 ** 2).toFixed(0)} MB`;

function rssAnon(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('RssAnon:'));
  return Number(line?.split(/\s+/)[1] ?? 0) * 1024;
}

/** The files under `dir`, or `dir` itself when it is a file (lmdb-js makes one when its path is not a directory). */
function filesUnder(dir: string): string[] {
  if (statSync(dir).isFile()) return [dir];
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

/** Bytes of every file under `dir` (the LMDB data file is nearly all of it). */
function bytesUnder(dir: string): number {
  return filesUnder(dir).reduce((sum, file) => sum + statSync(file).size, 0);
}

/**
 * How much of `filesUnder(dir)` the page cache holds (util-linux `fincore`): a cold read of a page it does not
 * hold waits for the disk, on the event loop (LMDB reads are memory-mapped). Some machines page out memory
 * left unused for a minute (DAMON's `pageout`), file pages included.
 */
function pageCached(dir: string): string {
  try {
    const out = execFileSync('fincore', ['--bytes', '--noheadings', '--output', 'RES,SIZE', ...filesUnder(dir)], { encoding: 'utf8' });
    let held = 0;
    let size = 0;
    for (const line of out.trim().split('\n')) {
      const [res = 0, bytes = 0] = line.trim().split(/\s+/).map(Number);
      held += res;
      size += bytes;
    }
    return `${mb(held)} of its ${mb(size)} of files in the page cache`;
  } catch {
    return 'page cache not measured (no fincore)';
  }
}

/** The service's GET /metrics, as exposition text. */
async function metricsText(url: string): Promise<string> {
  const res = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${METRICS_KEY}` } });
  return res.text();
}

/** Figures of the service's own GET /metrics, by metric name (unlabelled series only). */
async function scrape(url: string): Promise<Map<string, number>> {
  const figures = new Map<string, number>();
  for (const line of (await metricsText(url)).split('\n')) {
    const [name, value] = line.split(' ');
    if (name && value && !name.startsWith('#') && !name.includes('{')) figures.set(name, Number(value));
  }
  return figures;
}

/** RssAnon beside what the service says it holds: V8's heap in use and committed, memory outside it, resident owners. */
async function memory(engram: BenchService): Promise<string> {
  const m = await scrape(engram.url);
  return (
    `RssAnon ${mb(rssAnon(engram.child.pid!))} (heap used ${mb(m.get('nodejs_heap_size_used_bytes') ?? 0)} of ` +
    `${mb(m.get('nodejs_heap_size_total_bytes') ?? 0)} committed, ` +
    `external ${mb(m.get('nodejs_external_memory_bytes') ?? 0)}, ${m.get('engram_resident_owners')} resident owners ` +
    `charged ${mb(m.get('engram_resident_bytes') ?? 0)})`
  );
}

async function call(url: string, init: RequestInit = {}): Promise<void> {
  const res = await fetch(url, { ...init, headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' } });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${url}: ${res.status} ${text.slice(0, 300)}`);
}

/** The service's loop-delay histogram as it stands (its samples since the start). */
async function loopDelayBuckets(url: string): Promise<Buckets> {
  return readBuckets(await metricsText(url), 'engram_event_loop_delay_seconds');
}

interface LoopDelay {
  /** The p99 of each 1 s window (ms). */
  windows: number[];
  /** The p99 of every sample of the whole phase (ms), from the service's histogram, and how many samples. */
  phase: { value: number; samples: number };
}

/** Scrapes the service's event-loop delay p99 (since the previous scrape) each second until stopped, and reads its histogram at both ends. */
async function watchLoop(url: string): Promise<{ stop(): Promise<LoopDelay> }> {
  const windows: number[] = [];
  const sample = async () => {
    const p99 = (await scrape(url)).get('engram_event_loop_delay_p99_seconds');
    if (p99 !== undefined) windows.push(p99 * 1000);
  };
  const start = await loopDelayBuckets(url);
  void sample();
  const timer = setInterval(() => void sample(), 1000);
  return {
    async stop() {
      clearInterval(timer);
      const { value, samples } = quantileBetween(start, await loopDelayBuckets(url), 0.99);
      return { windows, phase: { value: value * 1000, samples } };
    },
  };
}

async function writeOwners(engram: BenchService, dataDir: string): Promise<LoopDelay> {
  const loop = await watchLoop(engram.url);
  let next = 0;
  let done = 0;
  const batch = (i: number) => ({
    operations: [
      { op: 'upsert_entity', entity_type: 'person', display_name: `Person ${i}` },
      ...[0, 1, 2].map((f) => ({ op: 'assert_fact', predicate: `p${f}`, value: `value ${i} ${f}` })),
    ],
  });
  const phaseStart = performance.now();
  let lastMark = phaseStart;
  await Promise.all(
    Array.from({ length: WRITERS }, async () => {
      for (let i = next++; i < OWNERS; i = next++) {
        await call(`${engram.url}/v1/memory/batch?entity_id=o${i}`, { method: 'POST', body: JSON.stringify(batch(i)) });
        await call(`${engram.url}/v1/documents?entity_id=o${i}`, {
          method: 'POST',
          body: JSON.stringify({ title: `Notes ${i}`, content: `Person ${i} keeps notes about project ${i % 997} and likes colour ${i % 13}.` }),
        });
        if (++done % EVERY === 0) {
          const now = performance.now();
          console.log(
            `  ${done} owners: ${await memory(engram)}, LMDB files ${mb(bytesUnder(dataDir))}, ` +
              `${(EVERY / ((now - lastMark) / 1000)).toFixed(0)} owners/s (${elapsed()})`,
          );
          lastMark = now;
        }
      }
    }),
  );
  console.log(`  wrote ${OWNERS} owners in ${((performance.now() - phaseStart) / 1000).toFixed(0)} s`);
  return loop.stop();
}

/** A shuffled list of owner numbers no read has touched yet: each cold read takes the next. */
function coldOwners(): () => number | undefined {
  const order = Array.from({ length: OWNERS }, (_, i) => i);
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return () => order.pop();
}

/**
 * Reads by `clients` clients for `ms` (or until `limit` reads, or `next` has no owner left); `read` lists
 * the owners read, in order.
 */
async function reads(target: Target, next: () => number | undefined, clients: number, ms: number, limit: number, read: number[] = []): Promise<Percentiles> {
  const samples: number[] = [];
  const client = leanGetter(clients, { authorization: `Bearer ${KEY}` });
  const end = performance.now() + ms;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < end && samples.length < limit) {
        const i = next();
        if (i === undefined) return;
        const t = performance.now();
        await client.get(target.read(i));
        samples.push(performance.now() - t);
        read.push(i);
      }
    }),
  );
  client.close();
  return percentiles(samples);
}

interface ReadFigures {
  clients: number;
  restarted: Percentiles;
  running: Percentiles;
  /** The running phase's owners read a second time: each read makes its owner resident. */
  again: Percentiles;
  /** And a third time, resident: what a cold read adds to a read. */
  warm: Percentiles;
}

/**
 * For 1 and 16 clients: restart the target, cold reads in its first 10 s (from the moment it listens),
 * then cold reads on the running node. Each phase reads at most a quarter of the owners' share left.
 */
async function readPhases(target: Target): Promise<ReadFigures[]> {
  const next = coldOwners();
  const limit = Math.floor(OWNERS / 4);
  const figures: ReadFigures[] = [];
  for (const clients of [1, WRITERS]) {
    await target.restart();
    console.log(`  ${target.name}, restarted for ${clients} client(s): ${pageCached(target.dataDir)}`);
    const restarted = await reads(target, next, clients, PHASE_MS, limit);
    const read: number[] = [];
    const running = await reads(target, next, clients, PHASE_MS, limit, read);
    const readTwice: number[] = [];
    const again = await reads(target, () => read.shift(), clients, PHASE_MS, limit, readTwice);
    const warm = await reads(target, () => readTwice.shift(), clients, PHASE_MS, limit);
    figures.push({ clients, restarted, running, again, warm });
  }
  return figures;
}

const show = (p: Percentiles, base: Percentiles) =>
  `p50 ${p.p50.toFixed(2)} ms, p99 ${p.p99.toFixed(2)} ms (${p.n} reads); raw p50 ${base.p50.toFixed(2)} ms, p99 ${base.p99.toFixed(2)} ms: ` +
  `${(p.p50 / base.p50).toFixed(1)}x, ${(p.p99 / base.p99).toFixed(1)}x`;

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'engram-bench-owners-'));
  const dataDir = join(dir, 'data');
  // PROFILE_DIR=<dir>: each start of the service writes a CPU profile there when it stops.
  const env = { METRICS_KEY };
  const nodeArgs = process.env.PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.PROFILE_DIR}`] : [];
  nodeArgs.push(...(process.env.SERVICE_NODE_ARGS ?? '').split(' ').filter(Boolean));
  let engram = await spawnEngram(dataDir, KEY, dir, env, nodeArgs);
  const rawEnv = { DATA: join(dir, 'raw'), OWNERS: String(OWNERS) };
  let raw = await spawnServer('bench/servers/bare-lmdb-owners.ts', rawEnv, plainUrl);
  try {
    console.log(`${OWNERS} owners (1 entity, 3 facts, 1 document each), ${WRITERS} in flight; at start RssAnon ${mb(rssAnon(engram.child.pid!))}`);
    const loop = await writeOwners(engram, dataDir);
    const loopP = percentiles(loop.windows);
    console.log(
      `  event-loop delay during writes: p99 ${loop.phase.value.toFixed(1)} ms over the whole phase (${loop.phase.samples} samples of the ` +
        `service's histogram, interpolated within its buckets); p99 of each 1 s window: median ${loopP.p50.toFixed(1)} ms, ` +
        `99th percentile of the windows ${loopP.p99.toFixed(1)} ms, worst ${loopP.max.toFixed(1)} ms (${loopP.n} windows)`,
    );

    const service: Target = {
      name: 'the service',
      dataDir,
      read: (i) => `${engram.url}/v1/memory/facts?entity_id=o${i}`,
      pid: () => engram.child.pid!,
      restart: async () => {
        await engram.stop();
        engram = await spawnEngram(dataDir, KEY, dir, env, nodeArgs);
      },
    };
    const bare: Target = {
      name: 'the raw baseline',
      dataDir: rawEnv.DATA,
      read: (i) => `${raw.url}/?owner=${i}`,
      pid: () => raw.child.pid!,
      restart: async () => {
        await stopChild(raw.child);
        raw = await spawnServer('bench/servers/bare-lmdb-owners.ts', rawEnv, plainUrl);
      },
    };
    const ours = await readPhases(service);
    console.log(`  after the reads: ${await memory(engram)}, LMDB files ${mb(bytesUnder(dataDir))}`);
    const base = await readPhases(bare);
    console.log(`cold reads (GET /v1/memory/facts of an owner not read since the start), beside a raw lmdb-js range read over bare node:http:`);
    ours.forEach((f, i) => {
      console.log(`  ${f.clients} client(s), first 10 s after a restart: ${show(f.restarted, base[i]!.restarted)}`);
      console.log(`  ${f.clients} client(s), running node:              ${show(f.running, base[i]!.running)}`);
      console.log(`  ${f.clients} client(s), the same owners read a second time (made resident): ${show(f.again, base[i]!.again)}`);
      console.log(`  ${f.clients} client(s), and a third time (resident): ${show(f.warm, base[i]!.warm)}`);
    });
    console.log(`total ${elapsed()}`);
  } finally {
    await engram.stop();
    await stopChild(raw.child);
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
