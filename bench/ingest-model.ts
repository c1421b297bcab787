/**
 * Document ingest with the local semantic model (issue 11), where embedding cost is the point, so
 * EMBEDDER=model. The same N English documents (paragraphs of the licence texts every Debian system has in
 * /usr/share/common-licenses, joined to 500-900 characters) are stored three ways, each timed to the last
 * acknowledgement, and each figure is a ratio to the first, measured in the same run:
 * - raw: the same embedder in process embeds the same passages (split to fit its window by the same rule)
 *   in calls of 50 documents, plus batched LMDB puts of the records (the baseline);
 * - POST /v1/documents, one document per request, 32 at a time over 100 owners (target ratio ≥ 0.7);
 * - POST /v1/documents/batch, 50 documents per request, 2 at a time (target ratio ≥ 0.8).
 * Run: `npm run bench:ingest-model -- [documents]` (builds first; default 300).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { splitPassagesToFit } from '../src/domain/passages.js';
import { openStore } from '../src/store/lmdb.js';
import { ModelEmbedder } from '../src/vector/onnx/model-embedder.js';
import { ROOT, spawnEngram } from './lib/processes.js';

const DOCUMENTS = Number(process.argv[2] ?? 300);
const KEY = 'sk_bench_ingest_model_0123456789';
const BATCH = 50;
const MODEL_DIR = join(ROOT, '.tools/models/all-MiniLM-L6-v2');
const LICENSES = '/usr/share/common-licenses';

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'engram-bench-ingest-model-'));
  const contents = englishDocuments(DOCUMENTS);
  const meanChars = contents.reduce((n, c) => n + c.length, 0) / contents.length;
  const raw = await rawSeconds(contents, join(dataDir, 'raw'));
  const engram = await spawnEngram(join(dataDir, 'data'), KEY, dataDir, { EMBEDDER: 'model', EMBEDDINGS_MODEL_DIR: MODEL_DIR });
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${engram.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (res.status !== 201) throw new Error(`${path} answered ${res.status}: ${await res.text()}`);
  };
  try {
    // The model loads on first use: one request first, so neither figure pays for it.
    await post('/v1/documents?entity_id=warm', { content: 'warm up' });
    let start = performance.now();
    await pool(contents.length, 32, (i) => post(`/v1/documents?entity_id=owner-${i % 100}`, { content: contents[i] }));
    const single = (performance.now() - start) / 1000;
    start = performance.now();
    await pool(Math.ceil(contents.length / BATCH), 2, (b) =>
      post(`/v1/documents/batch?entity_id=batch-${b % 100}`, { documents: contents.slice(b * BATCH, (b + 1) * BATCH).map((content) => ({ content })) }),
    );
    const batched = (performance.now() - start) / 1000;
    const rate = (seconds: number) => `${(contents.length / seconds).toFixed(1)} docs/s`;
    console.log(`\ndocument ingest with all-MiniLM-L6-v2 (EMBEDDER=model, 1 intra-op thread): ${contents.length} English documents of ~${Math.round(meanChars)} characters`);
    console.log(`raw: the same embedder in process + batched LMDB puts (baseline): ${rate(raw)} (${raw.toFixed(1)} s)`);
    console.log(`POST /v1/documents, 32 at a time:           ${rate(single)} (${single.toFixed(1)} s), ratio ${(raw / single).toFixed(2)} (target ≥ 0.7)`);
    console.log(`POST /v1/documents/batch (${BATCH}), 2 at a time:  ${rate(batched)} (${batched.toFixed(1)} s), ratio ${(raw / batched).toFixed(2)} (target ≥ 0.8)`);
  } finally {
    await engram.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Paragraphs of the licence texts joined into documents of 500-900 characters, repeated up to `n`. */
function englishDocuments(n: number): string[] {
  const paragraphs = readdirSync(LICENSES)
    .sort()
    .flatMap((name) => {
      try {
        return readFileSync(join(LICENSES, name), 'utf8').split(/\n\s*\n/);
      } catch {
        return [];
      }
    })
    .map((p) => p.replace(/\s+/g, ' ').trim())
    .filter((p) => p.length > 40);
  const docs: string[] = [];
  let current = '';
  for (const paragraph of paragraphs) {
    current = current ? `${current}\n\n${paragraph}` : paragraph;
    if (current.length >= 500) {
      docs.push(current.slice(0, 900));
      current = '';
    }
  }
  if (docs.length === 0) throw new Error(`no text found under ${LICENSES}`);
  return Array.from({ length: n }, (_, i) => docs[i % docs.length]!);
}

/** Seconds the embedder alone in process takes for the same passages, 50 documents a call, plus LMDB puts. */
async function rawSeconds(contents: string[], dir: string): Promise<number> {
  const embedder = new ModelEmbedder({ dir: MODEL_DIR, threads: 1 });
  const store = openStore(dir);
  const window = { maxTokens: embedder.maxTokens, count: (texts: string[]) => embedder.countTokens(texts) };
  try {
    await embedder.embed(['warm up']);
    const start = performance.now();
    for (let first = 0; first < contents.length; first += BATCH) {
      const docs = contents.slice(first, first + BATCH);
      const passages = await Promise.all(docs.map(async (content) => (await splitPassagesToFit(content, window)).map((p) => p.text)));
      const vectors = await embedder.embed(passages.flat());
      await store.transaction(() => {
        let at = 0;
        docs.forEach((content, k) => {
          store.records.put(['raw', 'doc', first + k], { content, created_at: Date.now() });
          for (let n = 0; n < passages[k]!.length; n++, at++) {
            const v = vectors[at]!;
            store.records.put(['raw', 'psg', first + k, n], { vector: new Uint8Array(v.buffer, v.byteOffset, v.byteLength) });
          }
        });
      });
    }
    return (performance.now() - start) / 1000;
  } finally {
    await embedder.close();
    await store.close();
  }
}

/** Runs `task(0..count-1)` with at most `width` at once. */
async function pool(count: number, width: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(width, count) }, async () => {
    while (next < count) await task(next++);
  }));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
