/**
 * Re-embedding throughput with the local model (issue 11): one owner's passages, written by the hashing
 * embedder, rewritten by the owner's re-embedding steps (pages of REEMBED_PAGE_SIZE through the owner's
 * actor, token-capped embedding calls, one transaction per page: what the `reembedOwner` activities run),
 * beside the raw model embedding the same texts in the same run (all handed over at once, no LMDB).
 * Meanwhile a probe embeds a short query every 20 ms through the same model thread, as a user's search
 * would; its latency is printed beside the same probe on an idle model. Two sizes of embedding call are
 * compared in alternating rounds (the machine is shared: each round measures the raw rate again).
 * Texts: sentences and ~1,000-character passages of /usr/share/common-licenses/GPL-3 (real English, as
 * Debian ships it), repeated as needed. Run: `npm run bench:reembed -- [short] [long] [rounds]`.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { OwnerReembed } from '../src/actors/owner-reembed.js';
import { loadConfig } from '../src/config.js';
import type { StoredDocument } from '../src/domain/documents.js';
import { splitPassages } from '../src/domain/passages.js';
import { DocumentStore } from '../src/store/documents.js';
import { openStore } from '../src/store/lmdb.js';
import { ReembedRecords } from '../src/store/reembed.js';
import { LocalEmbedder } from '../src/vector/local-embedder.js';
import { ModelEmbedder } from '../src/vector/onnx/model-embedder.js';

const SHORT = Number(process.argv[2] ?? 600);
const LONG = Number(process.argv[3] ?? 120);
const ROUNDS = Number(process.argv[4] ?? 2);
const PAGE = loadConfig({}).reembed.pageSize;
const CALL_TOKENS = [512, 256];

interface Round {
  rate: number;
  raw: number;
  during: number[];
}

/** One owner re-embedded once with calls of `callTokens`, on a fresh store. */
async function round(model: ModelEmbedder, texts: string[], callTokens: number): Promise<Round> {
  const dir = mkdtempSync(join(tmpdir(), 'engram-bench-reembed-'));
  const store = openStore(dir);
  try {
    const hash = new LocalEmbedder();
    const docs = new DocumentStore(store, []);
    const scope = { tenant: 'bench', partition: null, entityId: 'owner' };
    await store.transaction(() => {
      texts.forEach((text, i) => {
        const doc: StoredDocument = {
          doc_id: `doc_${i}`, cid: 'mgc1-x', tenant: 'bench', entity_id: 'owner', partition: null, modality: 'text', content_type: 'text/plain',
          title: null, content: text, derived_text: null, derived_by: null, filename: null, metadata: {}, tags: [], source: null, readers: null,
          created_at: i, updated_at: i, deleted_at: null,
        };
        docs.insert(scope, doc, { passages: [text], vectors: [hash.embedOne(text)], embedder: hash.id });
      });
    });
    const raw = await rawRate(model, texts);
    // The owner's steps as its actor builds them, with a transaction straight on the store (one owner, no other writer).
    const writes = { transaction: <T>(decide: (now: number) => T) => store.transaction(() => decide(Date.now())), hold: <T>(work: Promise<T>) => work };
    const origin = { id: model.id, ownsUnlabeled: false };
    const steps = new OwnerReembed(scope, writes, { records: new ReembedRecords(store), embedder: model, origin, reloadIndex: async () => {}, batchTokens: callTokens });
    let running = true;
    const probing = probe(model, () => !running);
    const start = performance.now();
    for (let finished = false; !finished; ) finished = (await steps.page(PAGE)).finished;
    const rate = texts.length / ((performance.now() - start) / 1000);
    running = false;
    const during = await probing;
    if ((await steps.finish()) !== 0) throw new Error('passages were left foreign');
    return { rate, raw, during };
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function rawRate(model: ModelEmbedder, texts: string[]): Promise<number> {
  const began = performance.now();
  for (let i = 0; i < texts.length; i += 256) await model.embed(texts.slice(i, i + 256));
  return texts.length / ((performance.now() - began) / 1000);
}

/** One short query every 20 ms through the model thread, until `done()` (or `count` probes); latencies in ms. */
async function probe(model: ModelEmbedder, done: () => boolean, count = Infinity): Promise<number[]> {
  const latencies: number[] = [];
  while (latencies.length < count && !done()) {
    const began = performance.now();
    await model.embed(['what does the user like to drink?']);
    latencies.push(performance.now() - began);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return latencies;
}

const pct = (values: number[], q: number) => ([...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))] ?? NaN).toFixed(0);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function measure(model: ModelEmbedder, name: string, texts: string[]): Promise<void> {
  const idle = await probe(model, () => false, 50);
  const rounds = new Map<number, Round[]>(CALL_TOKENS.map((tokens) => [tokens, []]));
  for (let r = 0; r < ROUNDS; r++) for (const tokens of CALL_TOKENS) rounds.get(tokens)!.push(await round(model, texts, tokens));
  const chars = Math.round(texts.reduce((n, t) => n + t.length, 0) / texts.length);
  for (const [tokens, runs] of rounds) {
    const during = runs.flatMap((run) => run.during);
    console.log(
      `| ${name} (${texts.length}, ~${chars} chars) | ${tokens} | ${median(runs.map((run) => run.rate)).toFixed(1)} passages/s | ${median(runs.map((run) => run.raw)).toFixed(1)} passages/s ` +
        `| ${median(runs.map((run) => run.rate / run.raw)).toFixed(2)} | p50 ${pct(during, 0.5)} ms, p99 ${pct(during, 0.99)} ms (idle model: p50 ${pct(idle, 0.5)}, p99 ${pct(idle, 0.99)}) |`,
    );
  }
}

async function main(): Promise<void> {
  const modelConfig = loadConfig({ EMBEDDER: 'model' }).embedder;
  if (modelConfig.kind !== 'model') throw new Error('unreachable: EMBEDDER=model configures the model');
  const model = new ModelEmbedder({ dir: modelConfig.dir, threads: 1 });
  try {
    await model.embed(['warm up the model before timing']);
    const license = readFileSync('/usr/share/common-licenses/GPL-3', 'utf8');
    const sentences = license.split(/(?<=[.;:])\s+/).map((t) => t.replace(/\s+/g, ' ').trim()).filter((t) => t.length >= 40);
    const passages = splitPassages(license).map((p) => p.text).filter((t) => t.length >= 800);
    const take = (from: string[], n: number) => Array.from({ length: n }, (_, i) => from[i % from.length]!);
    console.log(`pages of ${PAGE}, ${ROUNDS} alternating rounds per call size, medians`);
    console.log('| passages | tokens per call | re-embedding (owner pages, model, 1 thread) | raw model embed, same texts | ratio | a query embedded meanwhile |');
    console.log('|---|---|---|---|---|---|');
    await measure(model, 'sentences', take(sentences, SHORT));
    await measure(model, 'full passages', take(passages, LONG));
  } finally {
    await model.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
