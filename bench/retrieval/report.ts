/** The printed report: one table per set and query kind, then the issue's bars checked against the rows. */
import type { SearchMode } from './engram.js';
import type { Scores } from './metrics.js';
import type { EvalSet } from './types.js';

export type SystemName = 'bm25' | 'hash' | 'model';

export interface ResultRow {
  set: string;
  kind: string;
  system: SystemName;
  /** `bm25` for the in-process baseline. */
  mode: SearchMode | 'bm25';
  scores: Scores;
  /** How many answers each `search_mode` of the responses gave (`-` when the response had none). */
  answeredBy: Record<string, number>;
}

const label = (r: ResultRow) => (r.system === 'bm25' ? 'BM25 in process (baseline)' : `engram ${r.system === 'hash' ? 'EMBEDDER=hash' : 'EMBEDDER=model'}, ${r.mode === 'default' ? 'no mode' : `mode=${r.mode}`}`);
const f3 = (x: number) => x.toFixed(3);

export function printTables(sets: readonly EvalSet[], rows: readonly ResultRow[]): void {
  for (const set of sets) {
    for (const [kind, queries] of Object.entries(set.queries)) {
      const mine = rows.filter((r) => r.set === set.name && r.kind === kind);
      console.log(`\n${set.name} / ${kind}: ${queries.length} queries over ${set.documents.length} documents`);
      console.log(`${'system'.padEnd(44)} ${['R@1', 'R@5', 'R@10', 'MRR'].map((h) => h.padStart(6)).join(' ')}  answered by`);
      for (const r of mine) {
        const s = r.scores;
        const by = Object.entries(r.answeredBy)
          .map(([m, n]) => (n === s.queries ? m : `${m} ${n}`))
          .join(', ');
        console.log(`${label(r).padEnd(44)} ${[s.recall1, s.recall5, s.recall10, s.mrr].map((x) => f3(x).padStart(6)).join(' ')}  ${by}`);
      }
    }
  }
}

/** The model's rows of one set and kind by mode; the default is `hybrid` (the contract's default) or, on a service without modes, `default`. */
function byMode(rows: readonly ResultRow[], set: string, kind: string) {
  const find = (mode: SearchMode) => rows.find((r) => r.system === 'model' && r.set === set && r.kind === kind && r.mode === mode)?.scores;
  return { lexical: find('lexical'), semantic: find('semantic'), default: find('hybrid') ?? find('default') };
}

/** The bars of issue 11 ("What it must show") that the rows can answer, one line each. */
export function checkBars(rows: readonly ResultRow[]): string[] {
  const lines: string[] = [];
  const bar = (ok: boolean, text: string) => lines.push(`${ok ? 'PASS' : 'FAIL'}  ${text}`);
  const kinds = [...new Set(rows.filter((r) => r.system === 'model').map((r) => `${r.set}\t${r.kind}`))].map((k) => k.split('\t') as [string, string]);
  for (const [set, kind] of kinds) {
    const m = byMode(rows, set, kind);
    if (m.lexical && m.semantic && m.default) {
      for (const at of ['recall5', 'recall10'] as const) {
        const best = Math.max(m.lexical[at], m.semantic[at]);
        bar(m.default[at] >= best - 0.02, `${set} / ${kind}: default ${at} ${f3(m.default[at])} >= best of lexical, semantic ${f3(best)} - 0.02`);
      }
    }
  }
  const para = byMode(rows, 'paraphrase', 'paraphrase');
  if (para.default) bar(para.default.recall5 >= 0.95, `paraphrase: default recall5 ${f3(para.default.recall5)} >= 0.95`);
  if (para.semantic) bar(para.semantic.recall1 >= 0.7, `paraphrase: semantic recall1 ${f3(para.semantic.recall1)} >= 0.70`);
  if (para.default) lines.push(`${para.default.recall1 >= 0.75 ? 'GOAL met' : 'GOAL not met'}  paraphrase: default recall1 ${f3(para.default.recall1)} >= 0.75 (no fixed fusion measured so far kept it)`);
  for (const kind of ['fragment', 'synonyms']) {
    const known = byMode(rows, 'known-item', kind);
    if (known.default) bar(known.default.recall10 >= 0.95, `known-item / ${kind}: default recall10 ${f3(known.default.recall10)} >= 0.95`);
  }
  return lines;
}
