/**
 * Re-embedding throughput with the local model (issue 11): one owner's passages, written by the hashing
 * embedder, rewritten by the owner's re-embedding steps (pages of REEMBED_PAGE_SIZE through the owner's
 * actor, token-capped embedding calls, one transaction per page: what the `reembedOwner` activities run),
 * beside the raw model embedding the same texts in the same run (all handed over at once, no LMDB).
 * Texts: sentences and ~1,000-character passages of /usr/share/common-licenses/GPL-3 (real English, as
 * Debian ships it), repeated as needed. Run: `npm run bench:reembed -- [short] [long]` (defaults 1000, 200).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ActorRegistry } from '../src/actors/registry.js';
import { loadConfig } from '../src/config.js';
import type { StoredDocument } from '../src/domain/documents.js';
import { splitPassages } from '../src/domain/passages.js';
import { DocumentStore } from '../src/store/documents.js';
import { GraphStore } from '../src/store/graph.js';
import { openStore } from '../src/store/lmdb.js';
import { VectorIndexes } from '../src/vector/indexes.js';
import { LocalEmbedder } from '../src/vector/local-embedder.js';
import { ModelEmbedder } from '../src/vector/onnx/model-embedder.js';

const SHORT = Number(process.argv[2] ?? 1000);
const LONG = Number(process.argv[3] ?? 200);
const PAGE = loadConfig({}).reembed.pageSize;

async function measure(name: string, texts: string[]): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'engram-bench-reembed-'));
  const modelConfig = loadConfig({ EMBEDDER: 'model' }).embedder;
  if (modelConfig.kind !== 'model') throw new Error('unreachable: EMBEDDER=model configures the model');
  const model = new ModelEmbedder({ dir: modelConfig.dir, threads: 1 });
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
    await model.embed(['warm up the model before timing']);

    // The raw rate is taken before and after the owner's run, and averaged: the machine is shared.
    const rawRate = async () => {
      const began = performance.now();
      for (let i = 0; i < texts.length; i += 256) await model.embed(texts.slice(i, i + 256));
      return texts.length / ((performance.now() - began) / 1000);
    };
    const rawBefore = await rawRate();

    const indexes = new VectorIndexes(docs, model, dir, { exactMax: 1000, ef: 100, onError: () => undefined }, false);
    const actors = new ActorRegistry({ store, graph: new GraphStore(store), clock: { now: () => Date.now() }, documents: { docs, embedder: model, indexes } }, { maxActors: 10, idleMs: 60_000 });
    const steps = actors.actorFor(scope).reembedding;
    const start = performance.now();
    let pages = 0;
    for (let finished = false; !finished; pages++) finished = (await steps.page(PAGE)).finished;
    const engram = texts.length / ((performance.now() - start) / 1000);
    const raw = (rawBefore + (await rawRate())) / 2;
    const left = await steps.finish();
    await actors.close();
    if (left !== 0) throw new Error(`${left} passages were left foreign`);

    const chars = Math.round(texts.reduce((n, t) => n + t.length, 0) / texts.length);
    console.log(`| ${name} (${texts.length}, ~${chars} chars) | ${engram.toFixed(1)} passages/s (${pages} pages of ${PAGE}) | ${raw.toFixed(1)} passages/s | ${(engram / raw).toFixed(2)} |`);
  } finally {
    await model.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const license = readFileSync('/usr/share/common-licenses/GPL-3', 'utf8');
  const sentences = license.split(/(?<=[.;:])\s+/).map((t) => t.replace(/\s+/g, ' ').trim()).filter((t) => t.length >= 40);
  const passages = splitPassages(license).map((p) => p.text).filter((t) => t.length >= 800);
  const take = (from: string[], n: number) => Array.from({ length: n }, (_, i) => from[i % from.length]!);
  console.log('| passages | re-embedding (owner pages, model, 1 thread) | raw model embed, same texts | ratio |');
  console.log('|---|---|---|---|');
  await measure('sentences', take(sentences, SHORT));
  await measure('full passages', take(passages, LONG));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
