/**
 * The cost of encryption at rest (issue 13): fact assertion and document ingest over HTTP with
 * CONTENT_ENCRYPTION=on beside =off, two services of the same build running in the same run, measured in
 * interleaved rounds (medians); and the load of one owner's 10,000 facts (what its actor does on first use)
 * from sealed and from clear records, in process. Target: each rate with encryption ≥ 0.90 of without.
 * Run: `npm run bench:encryption -- [seconds] [rounds]` (builds first).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { FactOverlay } from '../src/actors/fact-overlay.js';
import type { Fact } from '../src/domain/facts.js';
import { GraphStore } from '../src/store/graph.js';
import { openStore } from '../src/store/lmdb.js';
import { createCorpus } from './lib/corpus.js';
import { factRequest } from './lib/fact-stream.js';
import { postLoad } from './lib/post-load.js';
import { spawnEngram, type BenchService } from './lib/processes.js';

const SECONDS = Number(process.argv[2] ?? 5);
const ROUNDS = Number(process.argv[3] ?? 5);
const KEY = 'sk_bench_crypt_0123456789abcdef';
const OWNERS = 100;
const FACTS = 10_000;

/** One load of one service: medians are taken over rounds. */
interface Figure {
  rps: number;
  p99: number;
  cpuUs: number;
  errors: number;
}

async function load(service: BenchService, connections: number, seconds: number, request: (n: number) => { path: string; body: string }): Promise<Figure> {
  const { rps, p99, serviceUs, errors } = await postLoad(service, KEY, connections, seconds, request);
  return { rps, p99, cpuUs: serviceUs, errors };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** Milliseconds to read one owner's FACTS facts and build its in-memory indexes, median of 7, from a store written with `encrypt`. */
async function factLoadMs(encrypt: boolean): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'engram-bench-crypt-load-'));
  const store = openStore(dir, 'full', { masterKey: Buffer.alloc(32, 5), encrypt });
  try {
    const graph = new GraphStore(store);
    const scope = { tenant: 'bench', partition: null, entityId: 'big' };
    const now = Date.now();
    const writes: Array<Promise<boolean>> = [];
    for (let i = 0; i < FACTS; i++) {
      const fact = {
        fact_id: `fact_${String(i).padStart(8, '0')}`, predicate: `p${i % 500}`, value: `value number ${i} of the owner`, subject_type: 'owner',
        subject_id: null, confidence: 1, source: null, observed_at: now + i, recorded_at: now + i, valid_from: now + i, invalid_from: i < FACTS - 500 ? now + i + 500 : null, supersedes: null,
      } as unknown as Fact;
      writes.push(graph.putFact(scope, fact));
    }
    await Promise.all(writes);
    const times: number[] = [];
    for (let k = 0; k < 7; k++) {
      const start = performance.now();
      new FactOverlay(graph.loadFacts(scope));
      times.push(performance.now() - start);
    }
    return median(times);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'engram-bench-crypt-'));
  const corpus = createCorpus(13);
  const docs = Array.from({ length: 2000 }, () => JSON.stringify({ content: corpus.sentence(80, 120), metadata: { source: 'bench' } }));
  const on = await spawnEngram(join(dir, 'on'), KEY, dir, { CONTENT_ENCRYPTION: 'on' });
  const off = await spawnEngram(join(dir, 'off'), KEY, dir, { CONTENT_ENCRYPTION: 'off' });
  const fact = (n: number) => factRequest(n, OWNERS);
  const doc = (n: number) => ({ path: `/v1/documents?entity_id=owner-${n % OWNERS}`, body: docs[n % docs.length]! });
  const scenarios = [
    { name: 'POST /v1/memory/facts (50 connections)', connections: 50, request: fact },
    { name: 'POST /v1/documents (64 connections)', connections: 64, request: doc },
  ];
  try {
    const figures = new Map<string, Figure[]>();
    for (const s of scenarios) for (const svc of [on, off]) await load(svc, s.connections, 2, s.request);
    for (let round = 0; round < ROUNDS; round++) {
      for (const s of scenarios) {
        // Alternating which goes first, so neither always runs on the warmer machine.
        const order = round % 2 === 0 ? ([['on', on], ['off', off]] as const) : ([['off', off], ['on', on]] as const);
        for (const [mode, svc] of order) {
          const f = await load(svc, s.connections, SECONDS, s.request);
          figures.set(`${s.name}|${mode}`, [...(figures.get(`${s.name}|${mode}`) ?? []), f]);
        }
      }
      console.log(`round ${round + 1} done`);
    }
    console.log(`\nencryption at rest: ${SECONDS} s per figure, medians of ${ROUNDS} interleaved rounds, ${OWNERS} owners, EMBEDDER=hash`);
    console.log('| scenario | on req/s | off req/s | ratio on/off | on p99 ms | off p99 ms | on CPU µs/req | off CPU µs/req | errors |');
    console.log('|---|---|---|---|---|---|---|---|---|');
    for (const s of scenarios) {
      const [a, b] = (['on', 'off'] as const).map((mode) => figures.get(`${s.name}|${mode}`)!);
      const m = (fs: Figure[], k: keyof Figure) => median(fs.map((f) => f[k]));
      console.log(`| ${s.name} | ${m(a!, 'rps').toFixed(0)} | ${m(b!, 'rps').toFixed(0)} | **${(m(a!, 'rps') / m(b!, 'rps')).toFixed(2)}** | ${m(a!, 'p99')} | ${m(b!, 'p99')} | ${m(a!, 'cpuUs').toFixed(0)} | ${m(b!, 'cpuUs').toFixed(0)} | ${[...a!, ...b!].reduce((n, f) => n + f.errors, 0)} |`);
    }
  } finally {
    await Promise.all([on.stop(), off.stop()]);
    rmSync(dir, { recursive: true, force: true });
  }
  const sealed = await factLoadMs(true);
  const clear = await factLoadMs(false);
  console.log(`\nloading one owner's ${FACTS} facts (records + in-memory indexes, median of 7): sealed ${sealed.toFixed(1)} ms, clear ${clear.toFixed(1)} ms, ratio ${(sealed / clear).toFixed(2)} (${((sealed - clear) * 1000 / FACTS).toFixed(2)} µs more per fact)`);
}

await main();
