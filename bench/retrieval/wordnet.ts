/**
 * WordNet 3.0 as Debian's `wordnet-base` ships it (`/usr/share/wordnet`): the data files (one synset a
 * line: offset, lexicographer file, type, word count in hex, words with lex ids, pointers, `| gloss`) and
 * the index files (one lemma a line: its synset offsets, most frequent sense first, and how many of its
 * senses are tagged in SemCor). Format: wndb(5WN).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const WORDNET_PARTS = ['noun', 'verb', 'adj', 'adv'] as const;
export type WordNetPart = (typeof WORDNET_PARTS)[number];

export interface Synset {
  part: WordNetPart;
  offset: string;
  /** Its words, underscores as spaces, adjective position markers such as `(a)` removed. */
  lemmas: string[];
  /** The gloss without its quoted example sentences, parts joined by `; `. */
  definition: string;
}

export interface IndexEntry {
  lemma: string;
  /** Synset offsets, most frequent sense first. */
  offsets: string[];
  /** Senses of this lemma tagged in SemCor (tagsense_cnt). */
  tagged: number;
}

/** A data-file line, or null for the licence header (lines starting with two spaces). */
export function parseSynsetLine(part: WordNetPart, line: string): Synset | null {
  if (line.startsWith(' ') || line.trim() === '') return null;
  const bar = line.indexOf(' | ');
  const fields = (bar < 0 ? line : line.slice(0, bar)).split(' ');
  const count = parseInt(fields[3]!, 16);
  const lemmas = Array.from({ length: count }, (_, i) => fields[4 + 2 * i]!.replace(/\([a-z]+\)$/, '').replace(/_/g, ' '));
  const gloss = bar < 0 ? '' : line.slice(bar + 3);
  const definition = gloss
    .replace(/"[^"]*"/g, '')
    .split(';')
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .join('; ');
  return { part, offset: fields[0]!, lemmas, definition };
}

/** An index-file line, or null for the licence header. */
export function parseIndexLine(line: string): IndexEntry | null {
  if (line.startsWith(' ') || line.trim() === '') return null;
  const f = line.trim().split(' ');
  const pointers = Number(f[3]);
  const senses = Number(f[4 + pointers]);
  const tagged = Number(f[5 + pointers]);
  return { lemma: f[0]!.replace(/_/g, ' '), offsets: f.slice(6 + pointers, 6 + pointers + senses), tagged };
}

export interface WordNet {
  /**
   * The most frequent synset of `lemma` (lower case) in its most used part of speech: the part where the
   * lemma has the most senses tagged in SemCor (ties: noun, verb, adj, adv), since the text has no tags.
   */
  firstSense(lemma: string): Synset | undefined;
  /** Distinct synsets that are the first sense of a lemma with at least `minTagged` senses tagged in SemCor, in file order. */
  commonFirstSenses(minTagged: number): Synset[];
}

export function loadWordNet(dir: string): WordNet {
  const synsets = new Map<string, Synset>();
  const index = new Map<WordNetPart, IndexEntry[]>();
  for (const part of WORDNET_PARTS) {
    for (const line of readFileSync(join(dir, `data.${part}`), 'utf8').split('\n')) {
      const synset = parseSynsetLine(part, line);
      if (synset) synsets.set(`${part}:${synset.offset}`, synset);
    }
    index.set(part, readFileSync(join(dir, `index.${part}`), 'utf8').split('\n').map(parseIndexLine).filter((e) => e !== null));
  }
  const byLemma = new Map<WordNetPart, Map<string, IndexEntry>>(WORDNET_PARTS.map((p) => [p, new Map(index.get(p)!.map((e) => [e.lemma, e]))]));
  return {
    firstSense(lemma) {
      let best: { part: WordNetPart; entry: IndexEntry } | undefined;
      for (const part of WORDNET_PARTS) {
        const entry = byLemma.get(part)!.get(lemma);
        if (entry && (!best || entry.tagged > best.entry.tagged)) best = { part, entry };
      }
      return best && synsets.get(`${best.part}:${best.entry.offsets[0]}`);
    },
    commonFirstSenses(minTagged) {
      const keys = new Set<string>();
      for (const part of WORDNET_PARTS) for (const e of index.get(part)!) if (e.tagged >= minTagged) keys.add(`${part}:${e.offsets[0]}`);
      return [...synsets].filter(([key]) => keys.has(key)).map(([, s]) => s);
    },
  };
}

/** Other words of `word`'s first synset (WordNet's most frequent sense), or none. */
export function firstSynonyms(wordnet: WordNet, word: string): string[] {
  const lower = word.toLowerCase();
  return wordnet.firstSense(lower)?.lemmas.filter((l) => l.toLowerCase() !== lower) ?? [];
}
