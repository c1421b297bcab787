/**
 * Retrieval quality through the running service (issue 11, item 7): recall@1/5/10 and MRR (top 10) of
 * `GET /v1/search` per evaluation set and mode, beside Okapi BM25 over the project's tokenizer computed in
 * process in the same run. The service runs twice on fresh DATA_DIRs: EMBEDDER=model (all-MiniLM-L6-v2)
 * with each of `--modes`, and EMBEDDER=hash (the old baseline) with no mode. Sets and their query rules:
 * bench/retrieval/sets/ and docs/search.md ("Retrieval evaluation"). Debian data is installed on first run.
 *
 * Run: `npm run bench:retrieval -- [--modes lexical,semantic,hybrid] [--embedders model,hash]
 *   [--sets paraphrase,known-item,glosses] [--pool 3000] [--queries 300] [--seed 11] [--json FILE]`
 * (`--modes default` sends no mode, for a service without modes).
 */
import { writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { tokenize } from './retrieval/tokenizer.js';
import { createBm25 } from './retrieval/bm25.js';
import { mapLimit, SEARCH_MODES, startEngram, type EmbedderKind, type SearchMode } from './retrieval/engram.js';
import { DEPTH, rankOf, score } from './retrieval/metrics.js';
import { checkBars, printTables, type ResultRow } from './retrieval/report.js';
import { buildSets, PARAPHRASE_FILE, SET_NAMES, type SetName } from './retrieval/sets/index.js';
import type { EvalSet } from './retrieval/types.js';

const { values: args } = parseArgs({
  options: {
    modes: { type: 'string', default: 'lexical,semantic,hybrid' },
    embedders: { type: 'string', default: 'model,hash' },
    sets: { type: 'string', default: SET_NAMES.join(',') },
    pool: { type: 'string', default: '3000' },
    queries: { type: 'string', default: '300' },
    seed: { type: 'string', default: '11' },
    paraphrase: { type: 'string', default: PARAPHRASE_FILE },
    json: { type: 'string' },
  },
});

function listOf<T extends string>(flag: string, value: string, allowed: readonly T[]): T[] {
  const items = value.split(',').filter((s) => s !== '');
  const bad = items.filter((s) => !allowed.includes(s as T));
  if (bad.length > 0 || items.length === 0) throw new Error(`--${flag} takes a comma-separated list of ${allowed.join(', ')}; got ${value}`);
  return items as T[];
}

const seconds = (since: number) => (performance.now() - since) / 1000;

function bm25Rows(set: EvalSet): ResultRow[] {
  const bm25 = createBm25(set.documents, tokenize);
  return Object.entries(set.queries).map(([kind, queries]) => ({
    set: set.name,
    kind,
    system: 'bm25',
    mode: 'bm25',
    scores: score(queries.map((q) => rankOf(bm25.search(q.text, DEPTH), q.target))),
    answeredBy: {},
  }));
}

async function engramRows(embedder: EmbedderKind, modes: readonly SearchMode[], sets: readonly EvalSet[], timings: string[]): Promise<ResultRow[]> {
  const engram = await startEngram(embedder);
  const rows: ResultRow[] = [];
  try {
    for (const set of sets) {
      let t = performance.now();
      const ids = await engram.load(set.name, set.documents);
      const indexOf = new Map(ids.map((id, i) => [id, i]));
      timings.push(`${embedder}: ${set.name}: ${set.documents.length} documents loaded in ${seconds(t).toFixed(1)} s (${(set.documents.length / seconds(t)).toFixed(0)}/s)`);
      for (const mode of modes) {
        t = performance.now();
        let asked = 0;
        for (const [kind, queries] of Object.entries(set.queries)) {
          const answers = await mapLimit(queries, 4, (q) => engram.search(set.name, q.text, mode));
          const answeredBy: Record<string, number> = {};
          for (const a of answers) answeredBy[a.searchMode ?? '-'] = (answeredBy[a.searchMode ?? '-'] ?? 0) + 1;
          const ranks = answers.map((a, i) => rankOf(a.docIds.map((id) => indexOf.get(id) ?? -1), queries[i]!.target));
          rows.push({ set: set.name, kind, system: embedder, mode, scores: score(ranks), answeredBy });
          asked += queries.length;
        }
        timings.push(`${embedder}: ${set.name}: ${asked} searches, ${mode === 'default' ? 'no mode' : `mode=${mode}`}, in ${seconds(t).toFixed(1)} s`);
      }
    }
  } finally {
    await engram.stop();
  }
  return rows;
}

async function main(): Promise<void> {
  const started = performance.now();
  const modes = listOf('modes', args.modes, SEARCH_MODES);
  const embedders = listOf('embedders', args.embedders, ['model', 'hash'] as const);
  const options = { seed: Number(args.seed), pool: Number(args.pool), queries: Number(args.queries), paraphraseFile: args.paraphrase };
  let t = performance.now();
  const sets = buildSets(listOf('sets', args.sets, SET_NAMES as readonly SetName[]), options);
  console.log(`sets built in ${seconds(t).toFixed(1)} s (seed ${options.seed}):`);
  for (const set of sets) console.log(`  ${set.name}: ${set.about}`);

  const rows = sets.flatMap(bm25Rows);
  const timings: string[] = [];
  for (const embedder of embedders) {
    t = performance.now();
    rows.push(...(await engramRows(embedder, embedder === 'model' ? modes : ['default'], sets, timings)));
    timings.push(`${embedder}: service run ${seconds(t).toFixed(1)} s in all`);
  }

  console.log(`\nretrieval through GET /v1/search, k=${DEPTH}; recall@k: the target is in the top k; MRR over the top ${DEPTH}`);
  printTables(sets, rows);
  console.log('\nissue 11 bars (default = mode=hybrid, or no mode where the service has no modes):');
  for (const line of checkBars(rows)) console.log(`  ${line}`);
  console.log(`\ntimings (${cpus().length} cores):`);
  for (const line of timings) console.log(`  ${line}`);
  console.log(`  whole benchmark: ${seconds(started).toFixed(0)} s`);

  if (args.json) {
    const sizes = sets.map((s) => ({ name: s.name, about: s.about, documents: s.documents.length, queries: Object.fromEntries(Object.entries(s.queries).map(([k, q]) => [k, q.length])) }));
    writeFileSync(args.json, `${JSON.stringify({ date: new Date().toISOString(), options: { ...options, modes, embedders }, sets: sizes, rows, timings }, null, 2)}\n`);
    console.log(`results written to ${args.json}`);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
