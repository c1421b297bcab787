/**
 * Document ingest with the local semantic model (issue 11): where embedding cost is the point, so
 * EMBEDDER=model. Prints, beside the raw throughput of the same embedder in process measured in the same
 * run (ModelEmbedder fed every passage, as fast as it takes them, plus batched LMDB puts of the records):
 * - POST /v1/documents, one document per request, 100 owners, 32 connections (target ratio ≥ 0.7);
 * - POST /v1/documents/batch, 50 documents per request, 100 owners, 2 connections (target ratio ≥ 0.8).
 * Run: `npm run bench:ingest-model -- [seconds]` (builds first).
 */
import autocannon from 'autocannon';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { splitPassages } from '../src/domain/passages.js';
import { openStore } from '../src/store/lmdb.js';
import { ModelEmbedder } from '../src/vector/onnx/model-embedder.js';
import { createCorpus } from './lib/corpus.js';
import { ROOT, spawnEngram } from './lib/processes.js';

const SECONDS = Number(process.argv[2] ?? 20);
const KEY = 'sk_bench_ingest_model_0123456789';
const BATCH = 50;
const MODEL_DIR = join(ROOT, '.tools/models/all-MiniLM-L6-v2');

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'engram-bench-ingest-model-'));
  const corpus = createCorpus(11);
  const contents = Array.from({ length: 4000 }, () => corpus.sentence(80, 120));
  const meanChars = contents.reduce((n, c) => n + c.length, 0) / contents.length;

  const rawRate = await rawBaseline(contents, join(dataDir, 'raw'));
  const engram = await spawnEngram(join(dataDir, 'data'), KEY, dataDir, { EMBEDDER: 'model', EMBEDDINGS_MODEL_DIR: MODEL_DIR });
  const headers = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
  try {
    // The model loads on first use: one request first, so neither figure pays for it.
    await fetch(`${engram.url}/v1/documents?entity_id=warm`, { method: 'POST', headers, body: JSON.stringify({ content: 'warm up' }) });
    let i = 0;
    const single = await autocannon({
      url: engram.url,
      connections: 32,
      duration: SECONDS,
      timeout: 120,
      headers,
      requests: [{ setupRequest: (req) => ({ ...req, method: 'POST', path: `/v1/documents?entity_id=owner-${i % 100}`, body: JSON.stringify({ content: contents[i++ % contents.length] }) }) }],
    });
    let j = 0;
    const batched = await autocannon({
      url: engram.url,
      connections: 2,
      duration: SECONDS,
      // A batch of 50 takes seconds to embed on one core: the default 10 s timeout would cut queued ones.
      timeout: 120,
      headers,
      requests: [
        {
          setupRequest: (req) => {
            const documents = Array.from({ length: BATCH }, () => ({ content: contents[j++ % contents.length] }));
            return { ...req, method: 'POST', path: `/v1/documents/batch?entity_id=owner-${j % 100}`, body: JSON.stringify({ documents }) };
          },
        },
      ],
    });
    // Completed documents over the run's duration: a batch completes a few times a second at most, too
    // coarse for autocannon's per-second average.
    const singleRate = single.requests.total / single.duration;
    const batchRate = (batched.requests.total * BATCH) / batched.duration;
    console.log(`\ndocument ingest with all-MiniLM-L6-v2 (EMBEDDER=model, 1 intra-op thread): ~${Math.round(meanChars)}-character documents (one passage each), ${SECONDS} s per figure`);
    console.log(`raw: the same embedder in process + batched LMDB puts (baseline): ${rawRate.toFixed(1)} docs/s`);
    const bad = (r: autocannon.Result) => r.non2xx + r.errors + r.timeouts;
    console.log(`POST /v1/documents, 32 connections:            ${singleRate.toFixed(1)} docs/s, p99 ${single.latency.p99} ms, ratio ${(singleRate / rawRate).toFixed(2)} (target ≥ 0.7)${bad(single) ? `, ${bad(single)} errors` : ''}`);
    console.log(`POST /v1/documents/batch (${BATCH}/request), 2 conn.: ${batchRate.toFixed(1)} docs/s, p99 ${batched.latency.p99} ms, ratio ${(batchRate / rawRate).toFixed(2)} (target ≥ 0.8)${bad(batched) ? `, ${bad(batched)} errors` : ''}`);
  } finally {
    await engram.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Documents per second of the embedder alone in process, fed 200 documents' passages at a time, plus LMDB puts. */
async function rawBaseline(contents: string[], dir: string): Promise<number> {
  const embedder = new ModelEmbedder({ dir: MODEL_DIR, threads: 1 });
  const store = openStore(dir);
  try {
    await embedder.embed(['warm up']);
    let done = 0;
    const start = performance.now();
    while (performance.now() - start < SECONDS * 1000) {
      const docs = Array.from({ length: 200 }, (_, k) => contents[(done + k) % contents.length]!);
      const passages = docs.map((content) => splitPassages(content).map((p) => p.text));
      const vectors = await embedder.embed(passages.flat());
      await store.transaction(() => {
        let at = 0;
        docs.forEach((content, k) => {
          store.records.put(['raw', 'doc', done + k], { content, created_at: Date.now() });
          for (let n = 0; n < passages[k]!.length; n++, at++) {
            const v = vectors[at]!;
            store.records.put(['raw', 'psg', done + k, n], { vector: new Uint8Array(v.buffer, v.byteOffset, v.byteLength) });
          }
        });
      });
      done += docs.length;
    }
    return done / ((performance.now() - start) / 1000);
  } finally {
    await embedder.close();
    await store.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
