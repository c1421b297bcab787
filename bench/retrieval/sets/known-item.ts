/**
 * Known-item search over real text: the fortune cookies Debian ships (`fortunes-min` and `fortunes`, under
 * `/usr/share/games/fortunes`), ~15,000 passages of quotations, jokes and aphorisms on every topic, written
 * by many hands: natural language in short passages, about the length of a memory or a note.
 *
 * The rule, all draws from one seeded PRNG:
 * 1. Passages are the text between `%` lines of every data file (files by name; `ascii-art`, whose
 *    passages are drawings, left out), white space collapsed to single spaces. Kept: 12 to 120 words, and
 *    the first of any passages whose tokens (the project's tokenizer) are the same.
 * 2. The pool is a sample of `pool` of them, each one document.
 * 3. Queries come from pool passages in a random order. For one: a fragment of 5 to 8 consecutive words
 *    (length and start drawn at random) with at least 3 content tokens that appears in no other pool
 *    passage (compared as lower-case letter and digit runs); up to 5 draws per passage, else the passage is
 *    skipped. Its synonym variant replaces half (rounded up) of the fragment's swappable words, drawn at
 *    random, each by a random other word of its first WordNet synset (in the part of speech where
 *    the word has the most senses tagged in SemCor); a swappable word is written in lower
 *    case, is not a stop word, and has such a synonym. A fragment without one is redrawn, so both variants
 *    exist for every target.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createRandom } from '../random.js';
import type { EvalQuery, EvalSet } from '../types.js';

export const FORTUNES_DIR = 'usr/share/games/fortunes';
const SKIPPED_FILES = new Set(['ascii-art']);

export interface KnownItemOptions {
  seed: number;
  pool: number;
  queries: number;
  tokenize: (text: string) => string[];
  /** Other words of the word's first WordNet synset. */
  synonyms: (word: string) => string[];
}

/** Every passage of the fortune files in `dir` (plain data files; `.dat` indexes and `.u8` links skipped). */
export function readFortunes(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => !f.endsWith('.dat') && !f.endsWith('.u8') && !SKIPPED_FILES.has(f) && statSync(join(dir, f)).isFile())
    .sort()
    .flatMap((f) => readFileSync(join(dir, f), 'utf8').split(/^%$/m));
}

/** The passages that can be targets: 12 to 120 words, white space collapsed, token-level duplicates dropped. */
export function cleanPassages(raw: readonly string[], tokenize: (text: string) => string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const passage of raw) {
    const text = passage.split(/\s+/).filter((w) => w !== '').join(' ');
    const words = text.split(' ').length;
    const key = tokenize(text).join(' ');
    if (words < 12 || words > 120 || key === '' || seen.has(key)) continue;
    seen.add(key);
    out.push(text);
  }
  return out;
}

const normalised = (text: string) => ` ${(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).join(' ')} `;

export function buildKnownItemSet(raw: readonly string[], options: KnownItemOptions): EvalSet {
  const random = createRandom(options.seed);
  const documents = random.sample(cleanPassages(raw, options.tokenize), options.pool);
  const haystacks = documents.map(normalised);
  const unique = (fragment: string, target: number) => {
    const needle = normalised(fragment);
    return haystacks.every((h, i) => i === target || !h.includes(needle));
  };
  const swappable = (word: string) => {
    const core = /^[^\p{L}\p{N}]*([a-z]+)[^\p{L}\p{N}]*$/u.exec(word)?.[1];
    if (!core || word !== word.toLowerCase() || options.tokenize(core).length === 0) return undefined;
    const synonyms = options.synonyms(core);
    return synonyms.length > 0 ? { core, synonyms } : undefined;
  };

  const fragments: EvalQuery[] = [];
  const swapped: EvalQuery[] = [];
  for (const target of random.shuffle(documents.map((_, i) => i))) {
    if (fragments.length >= options.queries) break;
    const words = documents[target]!.split(' ');
    for (let draw = 0; draw < 5; draw++) {
      const length = 5 + random.int(4);
      const start = random.int(words.length - length + 1);
      const fragment = words.slice(start, start + length);
      const text = fragment.join(' ');
      if (options.tokenize(text).length < 3 || !unique(text, target)) continue;
      const candidates = fragment.map((w, i) => ({ i, swap: swappable(w) })).filter((c) => c.swap !== undefined);
      if (candidates.length === 0) continue;
      const variant = [...fragment];
      for (const { i, swap } of random.sample(candidates, Math.ceil(candidates.length / 2))) {
        variant[i] = fragment[i]!.replace(swap!.core, random.pick(swap!.synonyms));
      }
      fragments.push({ text, target });
      swapped.push({ text: variant.join(' '), target });
      break;
    }
  }
  return {
    name: 'known-item',
    about: `${documents.length} fortune passages (Debian fortunes, fortunes-min); ${fragments.length} fragments of 5-8 words, and the same with WordNet synonyms`,
    documents,
    queries: { fragment: fragments, synonyms: swapped },
  };
}
