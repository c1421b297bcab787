/**
 * Document ingest with embedding (issue 4): POST /v1/documents over HTTP at 64 connections (durable commits are shared by the requests in flight), spread over
 * 100 owners and into one owner, beside the raw work measured in the same run (the local embedder plus
 * batched LMDB puts of the same records, in process, no HTTP). Run: `npm run bench:ingest -- [seconds]` (builds first).
 */
import autocannon from 'autocannon';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { splitPassages } from '../src/domain/passages.js';
import { openStore } from '../src/store/lmdb.js';
import { LocalEmbedder } from '../src/vector/local-embedder.js';
import { createCorpus } from './lib/corpus.js';
import { spawnEngram } from './lib/processes.js';

const SECONDS = Number(process.argv[2] ?? 10);
const KEY = 'sk_bench_ingest_0123456789abcdef';
const CONNECTIONS = 64;

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'engram-bench-ingest-'));
  const corpus = createCorpus(11);
  const bodies = Array.from({ length: 2000 }, () => JSON.stringify({ content: corpus.sentence(80, 120), metadata: { source: 'bench' } }));
  const meanChars = bodies.reduce((n, b) => n + b.length, 0) / bodies.length;

  // Raw baseline: embed every passage and put record + passages in batched LMDB transactions.
  const embedder = new LocalEmbedder(384);
  const raw = openStore(join(dataDir, 'raw'));
  let done = 0;
  const start = performance.now();
  while (performance.now() - start < SECONDS * 1000) {
    await raw.transaction(() => {
      for (let i = 0; i < 200; i++, done++) {
        const content = (JSON.parse(bodies[done % bodies.length]!) as { content: string }).content;
        const vectors = splitPassages(content).map((p) => embedder.embedOne(p.text));
        raw.records.put(['raw', 'doc', done], { content, created_at: Date.now() });
        vectors.forEach((v, j) => raw.records.put(['raw', 'psg', done, j], { vector: new Uint8Array(v.buffer) }));
      }
    });
  }
  const rawRate = done / ((performance.now() - start) / 1000);
  await raw.close();

  const engram = await spawnEngram(join(dataDir, 'data'), KEY, dataDir);
  const headers = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
  try {
    const run = async (name: string, owner: (i: number) => string) => {
      let i = 0;
      const result = await autocannon({
        url: engram.url,
        connections: CONNECTIONS,
        duration: SECONDS,
        headers,
        requests: [{ setupRequest: (req) => ({ ...req, method: 'POST', path: `/v1/documents?entity_id=${owner(i)}`, body: bodies[i++ % bodies.length] }) }],
      });
      return { name, rate: result.requests.average, p99: result.latency.p99, bad: result.non2xx + result.errors + result.timeouts, total: result.requests.total };
    };
    const spread = await run('POST /v1/documents, 100 owners', (i) => `owner-${i % 100}`);
    const single = await run('POST /v1/documents, one owner', () => 'owner-single');
    console.log(`\ndocument ingest with embedding: ~${Math.round(meanChars)}-byte bodies (one passage each), local embedder, ${CONNECTIONS} connections, ${SECONDS} s per figure`);
    console.log(`raw embed + batched LMDB puts in process (baseline): ${rawRate.toFixed(0)} docs/s`);
    for (const f of [spread, single]) {
      console.log(`${f.name.padEnd(34)} ${f.rate.toFixed(0)} docs/s, p99 ${f.p99} ms, ratio to raw ${(f.rate / rawRate).toFixed(2)} (${f.total} stored${f.bad ? `, ${f.bad} errors` : ''})`);
    }
    const check = await fetch(`${engram.url}/v1/search?entity_id=owner-single&k=1&q=${encodeURIComponent(JSON.parse(bodies[5]!).content.slice(0, 80))}`, { headers });
    console.log(`one-owner index after ingest answers search: ${check.status === 200 ? 'yes' : `no (${check.status})`}`);
  } finally {
    await engram.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
