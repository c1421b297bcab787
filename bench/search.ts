/**
 * Vector search on ONE owner with 100,000 passages (issue 4), through HTTP beside raw hnswlib-node on the
 * same vectors (the very index file the service loads) in the same run. Also: exact recall of both, the
 * exact-vs-hnswlib crossover that sets VECTOR_EXACT_MAX, and the rebuild time from LMDB.
 * Run: `npm run bench:search -- [passages] [seconds]` (builds first). Targets: HTTP QPS >= 30% of raw, recall@10 >= 0.95.
 */
import autocannon from 'autocannon';
import hnswlib from 'hnswlib-node';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../src/config.js';
import { newDocument } from '../src/domain/document-records.js';
import { createLogger } from '../src/log.js';
import { createDocumentBackends } from '../src/server.js';
import { openStore } from '../src/store/lmdb.js';
import { exactSearch } from '../src/vector/exact.js';
import { LocalEmbedder } from '../src/vector/local-embedder.js';
import { createCorpus } from './lib/corpus.js';
import { spawnEngram } from './lib/processes.js';

const PASSAGES = Number(process.argv[2] ?? 100_000);
const SECONDS = Number(process.argv[3] ?? 10);
const QUERIES = 200;
const K = 10;
const KEY = 'sk_bench_search_0123456789abcdef';
const scope = { tenant: 'bench', partition: null, entityId: 'owner-1' };

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;
const fmt = (n: number, d = 1) => n.toFixed(d);

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'engram-bench-search-'));
  const log = createLogger('warn');
  const embedder = new LocalEmbedder(384);
  const corpus = createCorpus(7);

  // 1. One owner's documents (one passage each) written straight to LMDB, as a restore would.
  const store = openStore(dataDir);
  const config = loadConfig({ DATA_DIR: dataDir });
  const ef = config.vector.ef;
  const { docs, indexes } = createDocumentBackends(config, store, log, []);
  const texts = Array.from({ length: PASSAGES }, () => corpus.sentence(8, 24));
  const flat = new Float32Array(PASSAGES * 384);
  const docIds: string[] = [];
  let t = performance.now();
  for (let start = 0; start < PASSAGES; start += 2000) {
    const batch = texts.slice(start, start + 2000);
    const vectors = batch.map((text) => embedder.embedOne(text));
    vectors.forEach((v, i) => flat.set(v, (start + i) * 384));
    await store.transaction(() => {
      batch.forEach((text, i) => {
        const docId = `doc_${String(start + i).padStart(7, '0')}`;
        docIds.push(docId);
        const doc = newDocument({ doc_id: docId, tenant: scope.tenant, entity_id: scope.entityId, partition: null, modality: 'text', content_type: 'text/plain', cid: 'mgc1-bench', content: text }, Date.now());
        docs.insert(scope, doc, { passages: [text], vectors: [vectors[i]!], embedder: embedder.id });
      });
    });
  }
  console.log(`wrote ${PASSAGES} passages (embedded) to LMDB in ${fmt((performance.now() - t) / 1000)} s`);

  // 2. The owner's index rebuilt from LMDB: vectors loaded, hnswlib built in a worker and persisted.
  t = performance.now();
  const { vector: index } = await indexes.open(scope);
  const loadMs = performance.now() - t;
  await index.settled();
  console.log(`index from LMDB: vectors loaded in ${fmt(loadMs)} ms, hnswlib built off the event loop in ${fmt((performance.now() - t) / 1000)} s (approximate: ${index.approximate})`);
  const indexFile = (indexes as unknown as { dir: string }).dir;
  index.close();
  await store.close();

  // 3. Queries and their exact top-10.
  const queryTexts = Array.from({ length: QUERIES }, () => corpus.queryFrom(texts[Math.floor(corpus.rand() * PASSAGES)]!));
  const queryVectors = queryTexts.map((q) => embedder.embedOne(q));
  t = performance.now();
  const truth = queryVectors.map((q) => new Set(exactSearch(flat, 384, Array.from({ length: PASSAGES }, (_, i) => i), q, K).map((h) => h.label)));
  const exactMs = (performance.now() - t) / QUERIES;

  // 4. Raw hnswlib-node on the same file, same ef.
  const { readdirSync } = await import('node:fs');
  const file = join(indexFile, readdirSync(indexFile).find((f) => f.endsWith('.hnsw'))!);
  const raw = new hnswlib.HierarchicalNSW('ip', 384);
  await raw.readIndex(file);
  raw.setEf(ef);
  const queryArrays = queryVectors.map((q) => Array.from(q));
  let found = 0;
  queryArrays.forEach((q, i) => (found += raw.searchKnn(q, K).neighbors.filter((l) => truth[i]!.has(l)).length));
  const rawRecall = found / (QUERIES * K);
  const rawLat: number[] = [];
  const rawStart = performance.now();
  for (let i = 0; performance.now() - rawStart < SECONDS * 1000; i++) {
    const s = performance.now();
    raw.searchKnn(Array.from(queryVectors[i % QUERIES]!), K);
    rawLat.push(performance.now() - s);
  }
  const rawQps = rawLat.length / ((performance.now() - rawStart) / 1000);

  // 5. Exact search cost at sizes around the threshold (the crossover that sets exactMax).
  const crossover: string[] = [];
  for (const n of [500, 1000, 2000, 4000, 8000]) {
    const labels = Array.from({ length: Math.min(n, PASSAGES) }, (_, i) => i);
    const s = performance.now();
    for (let i = 0; i < 50; i++) exactSearch(flat, 384, labels, queryVectors[i % QUERIES]!, 2 * K);
    crossover.push(`${n}: ${fmt((performance.now() - s) / 50, 3)} ms`);
  }

  // 6. The service in its own process on the same DATA_DIR: loads the persisted index on first search.
  const engram = await spawnEngram(dataDir, KEY, dataDir);
  const headers = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
  try {
    t = performance.now();
    await fetch(`${engram.url}/v1/search?entity_id=owner-1&q=warmup`, { headers });
    const firstMs = performance.now() - t;
    let httpFound = 0;
    for (let i = 0; i < QUERIES; i++) {
      const res = await fetch(`${engram.url}/v1/search/embed?entity_id=owner-1`, { method: 'POST', headers, body: JSON.stringify({ vector: queryArrays[i], k: K }) });
      const body = (await res.json()) as { results: Array<{ doc_id: string }> };
      httpFound += body.results.filter((r) => truth[i]!.has(Number(r.doc_id.slice(4)))).length;
    }
    const httpRecall = httpFound / (QUERIES * K);

    const run = async (name: string, request: (i: number) => autocannon.Request) => {
      let i = 0;
      const result = await autocannon({
        url: engram.url,
        connections: 8,
        duration: SECONDS,
        headers,
        requests: [{ setupRequest: (req) => ({ ...req, ...request(i++ % QUERIES) }) }],
      });
      const bad = result.non2xx + result.errors + result.timeouts;
      return { name, qps: result.requests.average, p99: result.latency.p99, bad };
    };
    const byText = await run('GET /v1/search (embeds the query)', (i) => ({ method: 'GET', path: `/v1/search?entity_id=owner-1&k=${K}&q=${encodeURIComponent(queryTexts[i]!)}` }));
    const byVector = await run('POST /v1/search/embed (caller vector)', (i) => ({ method: 'POST', path: `/v1/search/embed?entity_id=owner-1`, body: JSON.stringify({ vector: queryArrays[i], k: K }) }));

    console.log(`\nsearch on one owner with ${PASSAGES} passages, 384 dims, k=${K}, ef=${ef} (${SECONDS} s per figure, 8 HTTP connections)`);
    console.log(`first search after start (loads the persisted index): ${fmt(firstMs)} ms`);
    console.log(`raw hnswlib-node searchKnn (baseline):   ${fmt(rawQps, 0)} QPS, p99 ${fmt(pct(rawLat, 99), 3)} ms, recall@10 ${fmt(rawRecall, 3)} vs exact`);
    for (const f of [byText, byVector]) {
      console.log(`${f.name.padEnd(40)} ${fmt(f.qps, 0)} QPS, p99 ${f.p99} ms, ratio to raw ${fmt(f.qps / rawQps, 2)} (target >= 0.30)${f.bad ? `, ${f.bad} errors` : ''}`);
    }
    console.log(`HTTP recall@10 vs exact: ${fmt(httpRecall, 3)} (target >= 0.95)`);
    console.log(`exact search over all ${PASSAGES}: ${fmt(exactMs, 1)} ms per query (${fmt(exactMs / (1000 / rawQps), 0)}x raw hnswlib)`);
    console.log(`exact search cost by candidates (top ${2 * K}): ${crossover.join(', ')}; raw hnswlib p50 at ${PASSAGES}: ${fmt(pct(rawLat, 50), 3)} ms`);
  } finally {
    await engram.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
