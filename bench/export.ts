/**
 * Export and import of one owner with 100,000 documents (issue 13): `GET /v1/memory/export` streamed to a
 * file by a client that reads as fast as it can, then that file streamed to `POST /v1/memory/import` of an
 * empty owner of the same node (the same embedder: vectors kept). The service runs as `npm start` runs it
 * (built JavaScript, plain node, EMBEDDER=hash, Temporal off); its RSS is sampled from /proc every 20 ms
 * during each phase. Each phase stands beside a raw baseline on the same data, each baseline in a process of
 * its own so that its peak RSS is its own:
 * - export: a raw lmdb-js range read of the owner's records (documents, passage lists, passages), each
 *   document's line built with JSON.stringify (vectors as base64) and written to a file stream with backpressure;
 * - import: the export file read line by line, parsed, and its documents and passages put raw into a fresh
 *   LMDB in transactions of 500 documents.
 * Records are documents (one line each). Run: `npm run bench:export -- [documents]` (builds first).
 */
import { spawn } from 'node:child_process';
import { createReadStream, createWriteStream, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { request, type IncomingMessage } from 'node:http';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { KEY_MAX, openStore } from '../src/store/lmdb.js';
import { createCorpus } from './lib/corpus.js';
import { spawnEngram } from './lib/processes.js';

const KEY = 'sk_bench_export_0123456789abcdef';
const OWNER = ['bench', '', 'big'];

interface Phase {
  seconds: number;
  /** Peak resident set of the process doing the work, MB (with the LMDB pages it has mapped in). */
  peakMb: number;
  /** Peak of its anonymous memory (heap, buffers: RssAnon), MB: what a large owner could make grow. */
  peakAnonMb: number;
  /** Resident set when the phase began, MB. */
  startMb: number;
  /** Anonymous memory when the phase began (the service at rest; the baseline at its start), MB. */
  startAnonMb: number;
}

async function main(): Promise<void> {
  const documents = Number(process.argv[2] ?? 100_000);
  const dir = mkdtempSync(join(tmpdir(), 'engram-bench-export-'));
  const file = join(dir, 'export.ndjson');
  const dataDir = join(dir, 'data');
  const engram = await spawnEngram(dataDir, KEY, dir);
  const headers = { authorization: `Bearer ${KEY}` };
  try {
    await fill(engram.url, headers, documents);
    const pid = engram.child.pid!;
    const exported = await sampled(pid, async () => {
      const res = await send('GET', `${engram.url}/v1/memory/export?entity_id=big`, headers);
      if (res.statusCode !== 200) throw new Error(`export answered ${res.statusCode}`);
      await pipeline(res, createWriteStream(file));
    });
    const lines = countLines(file);
    if (lines !== documents) throw new Error(`the export holds ${lines} lines, not ${documents}`);
    const imported = await sampled(pid, async () => {
      const res = await send('POST', `${engram.url}/v1/memory/import?entity_id=copy`, { ...headers, 'content-type': 'application/x-ndjson' }, createReadStream(file));
      let text = '';
      for await (const chunk of res) text += String(chunk);
      const answer = JSON.parse(text) as { imported?: { documents: number } };
      if (res.statusCode !== 200 || answer.imported?.documents !== documents) throw new Error(`import answered ${res.statusCode} ${text}`);
    });
    await engram.stop();
    const rawExport = await baseline('raw-export', dataDir, join(dir, 'raw.ndjson'));
    const rawImport = await baseline('raw-import', join(dir, 'raw-db'), file);
    const mb = statSync(file).size / 1e6;
    console.log(`owner: ${documents} documents (one passage each, 384 dimensions), export ${mb.toFixed(0)} MB`);
    report('export', documents, exported, rawExport);
    report('import', documents, imported, rawImport);
  } finally {
    await engram.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Stores `documents` short notes in the owner through the batch route, four requests in flight. */
async function fill(url: string, headers: Record<string, string>, documents: number): Promise<void> {
  const corpus = createCorpus(13);
  let next = 0;
  const worker = async () => {
    while (next < documents) {
      const n = Math.min(100, documents - next);
      next += n;
      const body = JSON.stringify({ documents: Array.from({ length: n }, () => ({ content: corpus.sentence(20, 40), metadata: { source: 'bench' } })) });
      const res = await fetch(`${url}/v1/documents/batch?entity_id=big`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body });
      if (res.status !== 201) throw new Error(`batch answered ${res.status}: ${await res.text()}`);
    }
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
}

/** A request whose body (when given) is streamed; resolves with the response, its body still to read. */
function send(method: string, url: string, headers: Record<string, string>, body?: Readable): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, resolve);
    req.once('error', reject);
    if (body) body.pipe(req);
    else req.end();
  });
}

/** Runs `work` while sampling the memory of process `pid` every 20 ms. */
async function sampled(pid: number, work: () => Promise<void>): Promise<Phase> {
  const start = memoryMb(pid);
  let peak = start;
  const sample = () => {
    const now = memoryMb(pid);
    if (now) peak = { rss: Math.max(peak.rss, now.rss), anon: Math.max(peak.anon, now.anon) };
  };
  const timer = setInterval(sample, 20);
  const began = performance.now();
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  sample();
  const seconds = (performance.now() - began) / 1000;
  return { seconds, peakMb: peak.rss, startMb: start.rss, peakAnonMb: peak.anon, startAnonMb: start.anon };
}

/** VmRSS and RssAnon of a process (zeros once it has exited). */
function memoryMb(pid: number): { rss: number; anon: number } {
  let status = '';
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return { rss: 0, anon: 0 };
  }
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) / 1024;
  return { rss: kb('VmRSS'), anon: kb('RssAnon') };
}

const growth = (phase: Phase): number => Math.max(1, phase.peakAnonMb - phase.startAnonMb);

function countLines(path: string): number {
  const bytes = readFileSync(path);
  let n = 0;
  for (let at = bytes.indexOf(10); at !== -1; at = bytes.indexOf(10, at + 1)) n++;
  return n;
}

/**
 * Runs a raw baseline in a process of its own (this file with a mode), sampled like the service; the time
 * is the one it prints (its work, without starting tsx).
 */
async function baseline(mode: string, db: string, path: string): Promise<Phase> {
  const self = fileURLToPath(import.meta.url);
  const child = spawn(process.execPath, ['--import', 'tsx', self, mode, db, path], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const exited = new Promise<void>((resolve, reject) => child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${mode} exited with ${code}`)))));
  const phase = await sampled(child.pid!, () => exited);
  return { ...phase, seconds: (JSON.parse(out) as { seconds: number }).seconds };
}

/** Raw export: the owner's documents, passage lists and passages read by one range, one JSON line per document. */
async function rawExport(dataDir: string, out: string): Promise<void> {
  const store = openStore(dataDir);
  const began = performance.now();
  const stream = createWriteStream(out);
  const write = (text: string) => (stream.write(text) ? undefined : new Promise<void>((resolve) => stream.once('drain', () => resolve())));
  for (const { value } of store.records.getRange({ start: [...OWNER, 'doc'], end: [...OWNER, 'doc', KEY_MAX] })) {
    const doc = value as { doc_id: string };
    const labels = (store.records.get([...OWNER, 'dvec', doc.doc_id]) as number[] | undefined) ?? [];
    const passages = labels.map((label) => {
      const p = store.records.get([...OWNER, 'psg', label]) as { text: string; vector: Uint8Array; embedder?: string };
      return { text: p.text, embedder: p.embedder, vector_base64: Buffer.from(p.vector.buffer, p.vector.byteOffset, p.vector.byteLength).toString('base64') };
    });
    await write(`${JSON.stringify({ type: 'document', record: { ...doc, passages } })}\n`);
  }
  await new Promise<void>((resolve) => stream.end(() => resolve()));
  finish(began);
  await store.close();
}

/** Raw import: the export's documents and passages put into a fresh LMDB, 500 documents per transaction. */
async function rawImport(dataDir: string, file: string): Promise<void> {
  const store = openStore(dataDir);
  const began = performance.now();
  let batch: Array<{ record: { doc_id: string; passages: Array<{ text: string; vector_base64: string }> } }> = [];
  let label = 0;
  const flush = async () => {
    const docs = batch;
    batch = [];
    await store.transaction(() => {
      for (const { record } of docs) {
        const { passages, ...doc } = record;
        store.records.put([...OWNER, 'doc', doc.doc_id], doc);
        store.records.put([...OWNER, 'dvec', doc.doc_id], passages.map((_, i) => label + i));
        for (const p of passages) store.records.put([...OWNER, 'psg', label++], { doc_id: doc.doc_id, text: p.text, vector: Buffer.from(p.vector_base64, 'base64') });
      }
    });
  };
  for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
    batch.push(JSON.parse(line) as (typeof batch)[number]);
    if (batch.length >= 500) await flush();
  }
  await flush();
  finish(began);
  await store.close();
}

function finish(began: number): void {
  process.stdout.write(JSON.stringify({ seconds: (performance.now() - began) / 1000 }));
}

function report(name: string, documents: number, engram: Phase, raw: Phase): void {
  const rate = documents / engram.seconds;
  const rawRate = documents / raw.seconds;
  console.log(
    `${name}: engram ${rate.toFixed(0)} records/s, peak RSS ${engram.peakMb.toFixed(0)} MB (${engram.startMb.toFixed(0)} MB at the start), anonymous memory +${growth(engram).toFixed(0)} MB over the service at rest | ` +
      `raw ${rawRate.toFixed(0)} records/s, peak RSS ${raw.peakMb.toFixed(0)} MB, anonymous memory +${growth(raw).toFixed(0)} MB | ` +
      `ratios to raw: throughput ${(rate / rawRate).toFixed(2)}, peak RSS ${(engram.peakMb / raw.peakMb).toFixed(2)}, anonymous growth ${(growth(engram) / growth(raw)).toFixed(2)}`,
  );
}

const [mode, a, b] = process.argv.slice(2);
if (mode === 'raw-export') await rawExport(a!, b!);
else if (mode === 'raw-import') await rawImport(a!, b!);
else await main();
