/**
 * What running field patterns on RE2 (re2js) costs per document, against JavaScript's own RegExp with
 * the same semantics (first capture group, or the whole match; every match for a string_list). The
 * RE2 side is the production path (`extractField` with a pattern compiled once, as the index writer
 * caches it); the RegExp side is the code it replaced. Then one hostile pattern, where RegExp
 * backtracks exponentially and RE2 does not, and the worst case RE2 leaves: its time grows with the
 * compiled program, which is why programs and the text a pattern reads are bounded (pattern.ts).
 * Run: `npm run bench:regex -- [documents]` (default 2,000 documents of about 1 KB).
 */
import { performance } from 'node:perf_hooks';
import { extractField } from '../src/query/schema/extract.js';
import { compilePattern, MAX_PATTERN_INSTRUCTIONS, PATTERN_TEXT_WINDOW } from '../src/query/schema/pattern.js';
import type { FieldType } from '../src/query/schema/types.js';

const N = Number(process.argv[2] ?? 2_000);
const WORDS = 'the memory service keeps notes about customers orders invoices meetings and follow up items for each owner'.split(' ');

/** About 1 KB of prose with an invoice number, a total, a status and a few hashtags at varying places. */
function makeText(i: number): string {
  let seed = i * 7919 + 1;
  const rnd = () => ((seed = (seed * 48271) % 2147483647) / 2147483647);
  const words: string[] = [];
  while (words.join(' ').length < 1000) words.push(WORDS[Math.floor(rnd() * WORDS.length)]!);
  words.splice(Math.floor(rnd() * words.length), 0, `INV-${1000 + i}`);
  words.splice(Math.floor(rnd() * words.length), 0, `total: ${(rnd() * 1000).toFixed(2)}`);
  words.splice(Math.floor(rnd() * words.length), 0, `status: ${['open', 'closed', 'pending'][i % 3]}`);
  for (let t = 0; t < 3; t++) words.splice(Math.floor(rnd() * words.length), 0, `#tag${Math.floor(rnd() * 20)}`);
  return words.join(' ');
}

const CASES: Array<{ name: string; type: FieldType; regex: string }> = [
  { name: 'int, first group', type: 'int', regex: 'INV-(\\d+)' },
  { name: 'float, first group', type: 'float', regex: 'total: (\\d+\\.\\d{2})' },
  { name: 'string, alternation', type: 'string', regex: 'status: (open|closed|pending)' },
  { name: 'string_list, every match', type: 'string_list', regex: '#(\\w+)' },
  { name: 'no match (reads all text)', type: 'int', regex: 'ZZZ-(\\d+)' },
];

/** The replaced implementation: JavaScript RegExp with the `u` flag, same value rules. */
function nativeExtract(text: string, type: FieldType, regex: RegExp, global: RegExp): unknown {
  if (type === 'string_list') {
    const items: string[] = [];
    for (const m of text.matchAll(global)) {
      const item = (m.length > 1 ? m[1] : m[0])?.trim();
      if (item) items.push(item);
    }
    return items.length === 0 ? null : [...new Set(items)];
  }
  const m = regex.exec(text);
  return m ? (m.length > 1 ? m[1] : m[0]) : null;
}

function timePerDoc(run: (i: number) => unknown, rounds = 3): number {
  for (let i = 0; i < Math.min(N, 200); i++) run(i); // warm up the JIT and re2js's DFA cache
  let best = Infinity;
  for (let r = 0; r < rounds; r++) {
    const t0 = performance.now();
    for (let i = 0; i < N; i++) run(i);
    best = Math.min(best, (performance.now() - t0) / N);
  }
  return best * 1000;
}

const texts = Array.from({ length: N }, (_, i) => makeText(i));
console.log(`${N} documents of ~${Math.round(texts.reduce((n, t) => n + t.length, 0) / N)} characters; best of 3 rounds, µs per document\n`);
console.log('| pattern | RegExp | RE2 (re2js) | ratio |');
console.log('|---|---|---|---|');
for (const c of CASES) {
  const regex = new RegExp(c.regex, 'u');
  const global = new RegExp(c.regex, 'ug');
  const pattern = compilePattern(c.regex);
  const spec = { type: c.type, source: { regex: c.regex } };
  const native = timePerDoc((i) => nativeExtract(texts[i]!, c.type, regex, global));
  const re2 = timePerDoc((i) => extractField({ content: texts[i]!, derived_text: null, metadata: {} }, spec, pattern));
  console.log(`| \`${c.regex}\` (${c.name}) | ${native.toFixed(1)} | ${re2.toFixed(1)} | ${(re2 / native).toFixed(1)}x |`);
}

// A pattern a shape check let through (issue 12): RegExp's time doubles with each 'a', RE2's does not.
const hostile = '(a|a)*$';
const pattern = compilePattern(hostile);
console.log(`\n\`${hostile}\` on n a's and a '!', ms per document:\n`);
console.log('| n | RegExp | RE2 (re2js) |');
console.log('|---|---|---|');
for (const n of [16, 20, 22, 60_000]) {
  const text = `${'a'.repeat(n)}!`;
  const t0 = performance.now();
  const nativeMs = n <= 22 ? (new RegExp(hostile, 'u').exec(text), performance.now() - t0) : null;
  const t1 = performance.now();
  extractField({ content: text, derived_text: null, metadata: {} }, { type: 'string', source: { regex: hostile } }, pattern);
  const re2Ms = performance.now() - t1;
  console.log(`| ${n} | ${nativeMs === null ? 'not run (years)' : nativeMs.toFixed(1)} | ${re2Ms.toFixed(2)} |`);
}

// RE2's time grows with the compiled program: the worst one field may cost a document, with the
// largest patterns allowed (MAX_PATTERN_INSTRUCTIONS) over a full window of text that matches late.
console.log(`\nWorst case: patterns near ${MAX_PATTERN_INSTRUCTIONS} instructions over ${PATTERN_TEXT_WINDOW} characters that match at the end:\n`);
console.log('| pattern | instructions | ms per document |');
console.log('|---|---|---|');
for (const [regex, end, type] of [['(\\w{1,60})!', '!', 'string'], ['(.{0,30})(.{0,30})b', 'b', 'string'], ['(?:(a)|a|(aa)){1,11}b', 'b', 'string'], ['(\\w{1,60})', '', 'string_list']] as const) {
  const compiled = compilePattern(regex);
  const text = `${'a'.repeat(PATTERN_TEXT_WINDOW - end.length)}${end}`;
  const spec = { type: type as FieldType, source: { regex } };
  extractField({ content: text.slice(0, 2000), derived_text: null, metadata: {} }, spec, compiled);
  const t0 = performance.now();
  extractField({ content: text, derived_text: null, metadata: {} }, spec, compiled);
  console.log(`| \`${regex}\` (${type}) | ${compiled.programSize()} | ${(performance.now() - t0).toFixed(0)} |`);
}
