/**
 * The lexical index, hand-written (src/search/lexical-index.ts) against MiniSearch, the well-kept library
 * issue 11 suggested, on the same passages and the same tokenizer: build time, memory held, query time and
 * agreement of the top 10 with exact BM25 (bench/retrieval/bm25.ts, the in-process baseline of bench:retrieval).
 * Run: `npx tsx --expose-gc bench/lexical.ts [passages]` (or `npm run bench:lexical`).
 */
import MiniSearch from 'minisearch';
import { performance } from 'node:perf_hooks';
import { tokenize } from '../src/domain/text.js';
import { LexicalIndex } from '../src/search/lexical-index.js';
import { createCorpus } from './lib/corpus.js';
import { createBm25 } from './retrieval/bm25.js';

const PASSAGES = Number(process.argv[2] ?? 50_000);
const QUERIES = 300;
const gc = (globalThis as { gc?: () => void }).gc;

function heapAfter<T>(build: () => T): { value: T; bytes: number; ms: number } {
  gc?.();
  // Typed arrays live outside the JS heap: count both.
  const held = () => process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
  const before = held();
  const start = performance.now();
  const value = build();
  const ms = performance.now() - start;
  gc?.();
  return { value, bytes: held() - before, ms };
}

function percentile(xs: number[], p: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

const overlap = (a: number[], b: number[]) => (b.length ? a.filter((x) => b.includes(x)).length / b.length : 1);

function main(): void {
  const corpus = createCorpus(7);
  const texts = Array.from({ length: PASSAGES }, () => corpus.sentence(60, 160));
  const queries = Array.from({ length: QUERIES }, () => corpus.sentence(3, 6));
  const own = heapAfter(() => {
    const index = new LexicalIndex();
    texts.forEach((text, i) => index.add(i, `d${i}`, text));
    return index;
  });
  const mini = heapAfter(() => {
    const index = new MiniSearch<{ id: number; text: string }>({ fields: ['text'], tokenize: (text) => tokenize(text), processTerm: (t) => t });
    index.addAll(texts.map((text, id) => ({ id, text })));
    return index;
  });
  // The reference: plain Okapi BM25 over the same tokenizer, the baseline bench:retrieval uses too.
  const reference = createBm25(texts, tokenize);
  const timings = { own: [] as number[], mini: [] as number[] };
  const agreement = { own: 0, mini: 0 };
  for (const q of queries) {
    let t = performance.now();
    const ownTop = own.value.score(q).top(10).map(([l]) => l);
    timings.own.push(performance.now() - t);
    t = performance.now();
    const miniTop = mini.value.search(q, { combineWith: 'OR' }).slice(0, 10).map((r) => r.id as number);
    timings.mini.push(performance.now() - t);
    const truth = reference.search(q, 10);
    agreement.own += overlap(ownTop, truth) / QUERIES;
    agreement.mini += overlap(miniTop, truth) / QUERIES;
  }
  console.log(`\nlexical index over ${PASSAGES} synthetic passages (60-160 words), ${QUERIES} queries of 3-6 words, project tokenizer${gc ? '' : ' (run with --expose-gc for memory figures)'}`);
  console.log('index         build     memory held   query p50   query p99   top-10 agreement with exact BM25 (baseline)');
  for (const [name, built, times, agree] of [
    ['hand-written', own, timings.own, agreement.own],
    ['MiniSearch', mini, timings.mini, agreement.mini],
  ] as const) {
    console.log(`${name.padEnd(13)} ${(built.ms / 1000).toFixed(2).padStart(5)} s  ${(built.bytes / 2 ** 20).toFixed(0).padStart(6)} MiB  ${percentile(times, 0.5).toFixed(2).padStart(7)} ms  ${percentile(times, 0.99).toFixed(2).padStart(7)} ms   ${agree.toFixed(3)}`);
  }
  console.log(`ratio hand-written / MiniSearch: build ${(own.ms / mini.ms).toFixed(2)}, memory ${(own.bytes / mini.bytes).toFixed(2)}, query p50 ${(percentile(timings.own, 0.5) / percentile(timings.mini, 0.5)).toFixed(2)}`);
}

main();
