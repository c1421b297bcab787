/**
 * Search on ONE owner with 100,000 passages (issues 4 and 11), through HTTP beside raw hnswlib-node on the
 * very index file the service wrote, in the same run; and whether that owner's vector work stalls OTHER
 * owners: a probe of another owner's `GET /v1/memory/facts` while the big owner's index is rebuilt and
 * while it ingests, beside the same probe on an idle service and during an ingest spread over small owners
 * (no hnswlib); then kill -9 mid-ingest and the time until its searches are at full speed again.
 * Run: `npm run bench:search -- [passages] [seconds] [ingest seconds] [ingest docs/s]` (builds first; EMBEDDER=hash).
 * Targets: hybrid p50 <= 15 ms at 1 client, probe p99 <= 20 ms, full speed <= 10 s after a restart.
 */
import autocannon from 'autocannon';
import hnswlib from 'hnswlib-node';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfig } from '../src/config.js';
import { newDocument } from '../src/domain/document-records.js';
import { createLogger } from '../src/log.js';
import { createDocumentBackends } from '../src/server.js';
import { openStore } from '../src/store/lmdb.js';
import { exactSearch } from '../src/vector/exact.js';
import { LocalEmbedder } from '../src/vector/local-embedder.js';
import { createCorpus } from './lib/corpus.js';
import { percentiles, showPercentiles, startIngest, startProbe, type Percentiles } from './lib/probe.js';
import { spawnEngram, type BenchService } from './lib/processes.js';

const PASSAGES = Number(process.argv[2] ?? 100_000);
const SECONDS = Number(process.argv[3] ?? 10);
const INGEST_SECONDS = Number(process.argv[4] ?? 20);
/** The offered ingest load, the same for the small owners (baseline) and the big one. */
const INGEST_RATE = { perSecond: Number(process.argv[5] ?? 150), inFlight: 16 };
const QUERIES = 200;
const K = 10;
const KEY = 'sk_bench_search_0123456789abcdef';
const ENV = { EMBEDDER: 'hash' };
const scope = { tenant: 'bench', partition: null, entityId: 'owner-1' };
const headers = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
const fmt = (n: number, d = 1) => n.toFixed(d);
const ratio = (a: Percentiles, b: Percentiles) => `p99 ratio ${fmt(a.p99 / b.p99, 2)}, p50 ratio ${fmt(a.p50 / b.p50, 2)}`;

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'engram-bench-search-'));
  const embedder = new LocalEmbedder(384);
  const corpus = createCorpus(7);
  const out: string[] = [];
  const say = (line: string) => (out.push(line), console.log(line));

  // 1. One owner's documents (one passage each) written straight to LMDB, as a restore would; no index file.
  const store = openStore(dataDir);
  const config = loadConfig({ DATA_DIR: dataDir, ...ENV });
  const { docs } = createDocumentBackends(config, store, createLogger('warn'), []);
  const texts = Array.from({ length: PASSAGES }, () => corpus.sentence(8, 24));
  const flat = new Float32Array(PASSAGES * 384);
  let t = performance.now();
  for (let start = 0; start < PASSAGES; start += 2000) {
    const batch = texts.slice(start, start + 2000);
    const vectors = batch.map((text) => embedder.embedOne(text));
    vectors.forEach((v, i) => flat.set(v, (start + i) * 384));
    await store.transaction(() => {
      batch.forEach((text, i) => {
        const docId = `doc_${String(start + i).padStart(7, '0')}`;
        const doc = newDocument({ doc_id: docId, tenant: scope.tenant, entity_id: scope.entityId, partition: null, modality: 'text', content_type: 'text/plain', cid: 'mgc1-bench', content: text }, Date.now());
        docs.insert(scope, doc, { passages: [text], vectors: [vectors[i]!], embedder: embedder.id });
      });
    });
  }
  await store.close();
  console.log(`wrote ${PASSAGES} passages (embedded) to LMDB in ${fmt((performance.now() - t) / 1000)} s`);

  const queryTexts = Array.from({ length: QUERIES }, () => corpus.queryFrom(texts[Math.floor(corpus.rand() * PASSAGES)]!));
  const queryVectors = queryTexts.map((q) => embedder.embedOne(q));
  const all = Array.from({ length: PASSAGES }, (_, i) => i);
  t = performance.now();
  const truth = queryVectors.map((q) => new Set(exactSearch(flat, 384, all, q, K).map((h) => h.label)));
  const exactMs = (performance.now() - t) / QUERIES;
  const body = (i: number) => JSON.stringify({ content: `${corpus.sentence(60, 100)} ingest ${i}` });

  let engram: BenchService = await spawnEngram(dataDir, KEY, dataDir, ENV);
  try {
    // 2. Baselines of the probe: an idle service, then an ingest spread over 100 small owners (exact search, no hnswlib).
    for (let i = 0; i < 20; i++) await post(engram.url, '/v1/memory/facts?entity_id=probe', { predicate: `p${i}`, value: i });
    const probeUrl = `${engram.url}/v1/memory/facts?entity_id=probe`;
    const idle = await probeFor(probeUrl, 5);
    const small = startIngest((i) => `${engram.url}/v1/documents?entity_id=small-${i % 100}`, KEY, INGEST_RATE, body);
    const smallIngest = await probeFor(probeUrl, 10);
    const smallAcked = await small.stop();

    // 3. The big owner's index rebuilt from LMDB by the worker (no file yet), while the probe and one searching client run.
    t = performance.now();
    await search(engram.url, queryTexts[0]!);
    const firstMs = performance.now() - t;
    const searching = searchLoop(engram.url, queryTexts);
    const rebuild = await probeFor(probeUrl, 15);
    const duringRebuild = await searching.stop();
    while (coversOnDisk(dataDir) < PASSAGES) await sleep(1000);
    const rebuildS = (performance.now() - t) / 1000;

    // 4. Raw hnswlib-node on the file the worker checkpointed (baseline), then the service at 1 client and at 8.
    const raw = new hnswlib.HierarchicalNSW('ip', 384);
    await raw.readIndex(indexFile(dataDir));
    raw.setEf(config.vector.ef);
    const queryArrays = queryVectors.map((q) => Array.from(q));
    let found = 0;
    queryArrays.forEach((q, i) => (found += raw.searchKnn(q, K).neighbors.filter((l) => truth[i]!.has(l)).length));
    const rawRecall = found / (QUERIES * K);
    const rawK = (k: number) => percentiles(queryArrays.map((q) => timed(() => raw.searchKnn(q, k))));
    const raw10 = rawK(K);
    const raw400 = rawK(400);
    const rawLat: number[] = [];
    const rawStart = performance.now();
    for (let i = 0; performance.now() - rawStart < SECONDS * 1000; i++) rawLat.push(timed(() => raw.searchKnn(queryArrays[i % QUERIES]!, K)));
    const rawQps = rawLat.length / ((performance.now() - rawStart) / 1000);

    for (const q of queryTexts.slice(0, 20)) await search(engram.url, q);
    const hybrid = percentiles(await sequential(queryTexts, (q) => search(engram.url, q)));
    const semantic = percentiles(await sequential(queryTexts, (q) => search(engram.url, q, '&mode=semantic')));
    let httpFound = 0;
    for (let i = 0; i < QUERIES; i++) {
      const res = await fetch(`${engram.url}/v1/search/embed?entity_id=owner-1`, { method: 'POST', headers, body: JSON.stringify({ vector: queryArrays[i], k: K }) });
      const answer = (await res.json()) as { results: Array<{ doc_id: string }> };
      httpFound += answer.results.filter((r) => truth[i]!.has(Number(r.doc_id.slice(4)))).length;
    }
    const byText = await qps(engram.url, 'GET /v1/search (hybrid, embeds the query)', (i) => ({ method: 'GET', path: `/v1/search?entity_id=owner-1&k=${K}&q=${encodeURIComponent(queryTexts[i]!)}` }));
    const byVector = await qps(engram.url, 'POST /v1/search/embed (caller vector)', (i) => ({ method: 'POST', path: `/v1/search/embed?entity_id=owner-1`, body: JSON.stringify({ vector: queryArrays[i], k: K }) }));

    const crossover: string[] = [];
    for (const n of [500, 1000, 2000, 4000, 8000]) {
      const labels = all.slice(0, Math.min(n, PASSAGES));
      const s = performance.now();
      for (let i = 0; i < 50; i++) exactSearch(flat, 384, labels, queryVectors[i % QUERIES]!, 2 * K);
      crossover.push(`${n}: ${fmt((performance.now() - s) / 50, 3)} ms`);
    }

    // 5. The big owner ingests while probed; the service is killed with SIGKILL in the middle of it.
    const ingest = startIngest(() => `${engram.url}/v1/documents?entity_id=owner-1`, KEY, INGEST_RATE, body);
    const bigIngest = await probeFor(probeUrl, INGEST_SECONDS);
    const coversAtKill = coversOnDisk(dataDir);
    engram.child.kill('SIGKILL');
    const acked = await ingest.stop();

    // 6. Restart: time until a hybrid search of the big owner answers, and until it is at full speed again
    // (10 searches in a row within 1.5x the p50 measured above, or +5 ms).
    const fullSpeed = Math.max(1.5 * hybrid.p50, hybrid.p50 + 5);
    t = performance.now();
    engram = await spawnEngram(dataDir, KEY, dataDir, ENV);
    const listeningS = (performance.now() - t) / 1000;
    await search(engram.url, queryTexts[0]!);
    const firstAnswerS = (performance.now() - t) / 1000;
    let streak = 0;
    let streakFrom = 0;
    for (let i = 0; streak < 10 && performance.now() - t < 900_000; i++) {
      const started = performance.now();
      if ((await search(engram.url, queryTexts[i % QUERIES]!)) > fullSpeed) streak = 0;
      else if (streak++ === 0) streakFrom = started;
    }
    const fullSpeedS = (streakFrom - t) / 1000;

    say(`\nsearch on one owner with ${PASSAGES} passages, 384 dims (EMBEDDER=hash), k=${K}, ef=${config.vector.ef}; 2 cores shared`);
    say(`rebuild from LMDB in the vector worker (no file): first search answered in ${fmt(firstMs)} ms, index complete and checkpointed in ${fmt(rebuildS)} s`);
    say(`raw hnswlib-node searchKnn (baseline): k=10 p50 ${fmt(raw10.p50, 2)} ms, k=400 p50 ${fmt(raw400.p50, 2)} ms, ${fmt(rawQps, 0)} QPS, recall@10 ${fmt(rawRecall, 3)} vs exact`);
    say(`GET /v1/search hybrid at 1 client: ${showPercentiles(hybrid)}; target p50 <= 15 ms; ratio to raw k=400 p50 ${fmt(hybrid.p50 / raw400.p50, 2)}`);
    say(`GET /v1/search mode=semantic at 1 client: ${showPercentiles(semantic)}`);
    for (const f of [byText, byVector]) say(`${f.name} at 8 connections: ${fmt(f.qps, 0)} QPS, p99 ${f.p99} ms, ratio to raw ${fmt(f.qps / rawQps, 2)}${f.bad ? `, ${f.bad} errors` : ''}`);
    say(`HTTP recall@10 vs exact (search/embed): ${fmt(httpFound / (QUERIES * K), 3)} (raw ${fmt(rawRecall, 3)})`);
    say(`exact search over all ${PASSAGES}: ${fmt(exactMs, 1)} ms per query; by candidates (top ${2 * K}): ${crossover.join(', ')}`);
    say(`probe GET /v1/memory/facts of another owner:`);
    say(`  idle service (baseline):                          ${showPercentiles(idle)}`);
    say(`  ingest into 100 small owners at ${INGEST_RATE.perSecond} docs/s, ${smallAcked} docs (baseline): ${showPercentiles(smallIngest)}`);
    say(`  during the big owner's index rebuild:             ${showPercentiles(rebuild)}; ${ratio(rebuild, idle)} to idle`);
    say(`    (meanwhile 1 client searched the rebuilding owner: ${showPercentiles(duringRebuild)})`);
    say(`  during the big owner's ingest at ${INGEST_RATE.perSecond} docs/s, ${acked} docs: ${showPercentiles(bigIngest)}; ${ratio(bigIngest, smallIngest)} to small-owner ingest`);
    say(`kill -9 after ${INGEST_SECONDS} s of that ingest (${acked} acknowledged, checkpoint on disk covering labels below ${coversAtKill}):`);
    say(`  restart: listening after ${fmt(listeningS)} s, first hybrid answer after ${fmt(firstAnswerS)} s, full speed (<= ${fmt(fullSpeed)} ms) after ${fmt(fullSpeedS)} s; target <= 10 s`);
  } finally {
    await engram.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function post(url: string, path: string, payload: unknown): Promise<void> {
  const res = await fetch(`${url}${path}`, { method: 'POST', headers, body: JSON.stringify(payload) });
  if (res.status !== 201) throw new Error(`${path} answered ${res.status}`);
}

/** One search's latency in ms. */
async function search(url: string, q: string, extra = ''): Promise<number> {
  const t = performance.now();
  const res = await fetch(`${url}/v1/search?entity_id=owner-1&k=${K}&q=${encodeURIComponent(q)}${extra}`, { headers });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`search answered ${res.status}`);
  return performance.now() - t;
}

async function sequential<T>(items: T[], run: (item: T) => Promise<number>): Promise<number[]> {
  const samples: number[] = [];
  for (const item of items) samples.push(await run(item));
  return samples;
}

function searchLoop(url: string, queries: string[]): { stop(): Promise<Percentiles> } {
  let stopped = false;
  const samples: number[] = [];
  const loop = (async () => {
    for (let i = 0; !stopped; i++) samples.push(await search(url, queries[i % queries.length]!));
  })();
  return { stop: async () => ((stopped = true), await loop, percentiles(samples)) };
}

async function probeFor(url: string, seconds: number): Promise<Percentiles> {
  const probe = startProbe(url, KEY);
  await sleep(seconds * 1000);
  return percentiles(await probe.stop());
}

async function qps(url: string, name: string, request: (i: number) => autocannon.Request) {
  let i = 0;
  const result = await autocannon({ url, connections: 8, duration: SECONDS, headers, requests: [{ setupRequest: (req) => ({ ...req, ...request(i++ % QUERIES) }) }] });
  return { name, qps: result.requests.average, p99: result.latency.p99, bad: result.non2xx + result.errors + result.timeouts };
}

function timed(run: () => unknown): number {
  const t = performance.now();
  run();
  return performance.now() - t;
}

/** The `covers` mark of the big owner's checkpoint (the largest of the files: the other owners are small). */
function coversOnDisk(dataDir: string): number {
  const dir = join(dataDir, 'vectors');
  if (!existsSync(dir)) return 0;
  const metas = readdirSync(dir).filter((f) => f.endsWith('.json'));
  return Math.max(0, ...metas.map((f) => (JSON.parse(readFileSync(join(dir, f), 'utf8')) as { covers: number }).covers));
}

function indexFile(dataDir: string): string {
  const dir = join(dataDir, 'vectors');
  const metas = readdirSync(dir).filter((f) => f.endsWith('.json'));
  const biggest = metas.sort((a, b) => (JSON.parse(readFileSync(join(dir, b), 'utf8')) as { covers: number }).covers - (JSON.parse(readFileSync(join(dir, a), 'utf8')) as { covers: number }).covers)[0]!;
  return join(dir, biggest.replace(/\.json$/, '.hnsw'));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
