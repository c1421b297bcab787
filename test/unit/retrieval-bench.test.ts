import { describe, expect, it } from 'vitest';
import { createBm25 } from '../../bench/retrieval/bm25.js';
import { rankOf, score } from '../../bench/retrieval/metrics.js';
import { createRandom } from '../../bench/retrieval/random.js';
import { buildGlossSet } from '../../bench/retrieval/sets/glosses.js';
import { buildKnownItemSet, cleanPassages } from '../../bench/retrieval/sets/known-item.js';
import { buildParaphraseSet } from '../../bench/retrieval/sets/paraphrase.js';
import type { EvalSet } from '../../bench/retrieval/types.js';
import { parseIndexLine, parseSynsetLine, type Synset } from '../../bench/retrieval/wordnet.js';
import { tokenize } from '../../bench/retrieval/tokenizer.js';

describe('retrieval metrics', () => {
  it('ranks a target within the top 10 only', () => {
    expect(rankOf([4, 7, 2], 7)).toBe(2);
    expect(rankOf([4, 7, 2], 9)).toBeNull();
    expect(rankOf([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 10)).toBeNull();
  });

  it('computes recall@1/5/10 and MRR over the queries', () => {
    const s = score([1, 3, null, 7]);
    expect(s).toMatchObject({ queries: 4, recall1: 0.25, recall5: 0.5, recall10: 0.75 });
    expect(s.mrr).toBeCloseTo((1 + 1 / 3 + 1 / 7) / 4, 12);
    expect(score([])).toMatchObject({ queries: 0, recall1: 0, mrr: 0 });
  });
});

describe('BM25 baseline', () => {
  const docs = ['apple', 'apple banana cherry date elderberry', 'banana split', 'cherry pie with cherry', 'nothing relevant here'];
  const bm25 = createBm25(docs, tokenize);

  it('prefers the shorter document for the same term frequency', () => {
    expect(bm25.search('apple', 10)).toEqual([0, 1]);
  });

  it('weighs a rare term above a common one and repeats with saturation', () => {
    // "cherry" is in 2 documents, "split" in 1: the document with "split" wins for "cherry split".
    expect(bm25.search('cherry split', 10)[0]).toBe(2);
    expect(bm25.search('cherry', 10)).toEqual([3, 1]);
  });

  it('retrieves no document that shares no term, and cuts at k', () => {
    expect(bm25.search('zebra', 10)).toEqual([]);
    expect(bm25.search('apple banana cherry', 2)).toHaveLength(2);
  });

  it('breaks ties by document order', () => {
    expect(createBm25(['same words', 'same words'], tokenize).search('same', 10)).toEqual([0, 1]);
  });
});

describe('WordNet parsing', () => {
  it('reads a synset line: words, and the gloss without its quoted examples', () => {
    const line = '02958343 06 n 05 car 0 auto 0 automobile 0 machine 1 motorcar 0 001 @ 03791235 n 0000 | a motor vehicle with four wheels; usually propelled by an internal combustion engine; "he needs a car to get to work"  ';
    expect(parseSynsetLine('noun', line)).toEqual({
      part: 'noun',
      offset: '02958343',
      lemmas: ['car', 'auto', 'automobile', 'machine', 'motorcar'],
      definition: 'a motor vehicle with four wheels; usually propelled by an internal combustion engine',
    });
    const adj = '00001740 00 a 02 able(a) 0 well_able 0 000 | having the necessary means; "able to swim; or not"; "she was able"';
    expect(parseSynsetLine('adj', adj)).toMatchObject({ lemmas: ['able', 'well able'], definition: 'having the necessary means' });
    expect(parseSynsetLine('noun', '  1 This software and database is being provided')).toBeNull();
  });

  it('reads an index line: senses most frequent first, and the SemCor tag count', () => {
    expect(parseIndexLine('ice_cream n 2 3 @ ~ + 2 1 07614500 07609840  ')).toEqual({ lemma: 'ice cream', offsets: ['07614500', '07609840'], tagged: 1 });
  });
});

/** A set builder gives the same set for the same seed, and other queries for another seed. */
function expectSeeded(build: (seed: number) => EvalSet, kind: string): void {
  expect(build(5)).toEqual(build(5));
  expect(build(6).queries[kind]).not.toEqual(build(5).queries[kind]);
}

/** Sentences of pseudo-words: 80 passages of 12-30 words over a 150-word vocabulary. */
function syntheticPassages(seed: number): string[] {
  const random = createRandom(seed);
  const letter = (n: number) => String.fromCharCode(97 + (n % 26));
  const vocabulary = Array.from({ length: 150 }, (_, i) => `${letter(i)}${letter(Math.floor(i / 26))}zq${'abcdefg'[i % 7]}`);
  return Array.from({ length: 80 }, () => Array.from({ length: 12 + random.int(19) }, () => random.pick(vocabulary)).join(' '));
}

describe('known-item set', () => {
  const raw = [...syntheticPassages(3), 'too short to keep', syntheticPassages(3)[0]!];
  const synonyms = (w: string) => (w.endsWith('a') ? [`${w}-syn`, `${w}-alt`] : []);
  const build = (seed: number) => buildKnownItemSet(raw, { seed, pool: 60, queries: 25, tokenize, synonyms });

  it('drops short and duplicated passages', () => {
    const clean = cleanPassages(raw, tokenize);
    expect(clean).toHaveLength(new Set(syntheticPassages(3)).size);
    expect(clean).not.toContain('too short to keep');
  });

  it('is a function of its seed', () => expectSeeded(build, 'fragment'));

  it('makes fragments of 5-8 consecutive words found in their target only, and synonym variants of them', () => {
    const set = build(5);
    expect(set.documents).toHaveLength(60);
    expect(set.queries.fragment).toHaveLength(25);
    set.queries.fragment!.forEach((q, i) => {
      const words = q.text.split(' ');
      expect(words.length).toBeGreaterThanOrEqual(5);
      expect(words.length).toBeLessThanOrEqual(8);
      expect(set.documents.filter((d) => ` ${d} `.includes(` ${q.text} `))).toEqual([set.documents[q.target]]);
      const variant = set.queries.synonyms![i]!;
      expect(variant.target).toBe(q.target);
      const changed = variant.text.split(' ').filter((w, j) => w !== words[j]);
      expect(changed.length).toBeGreaterThan(0);
      expect(changed.every((w) => w.endsWith('-syn') || w.endsWith('-alt'))).toBe(true);
    });
  });
});

describe('gloss set', () => {
  const synset = (offset: string, lemmas: string[], definition: string): Synset => ({ part: 'noun', offset, lemmas, definition });
  const candidates = [
    ...Array.from({ length: 40 }, (_, i) => synset(`${i}`, [`word${i}`, `term${i}`], `a definition of thing number ${i} in plain words`)),
    synset('x1', ['car', 'auto'], 'a motor vehicle with four wheels'),
    synset('x2', ['auto', 'car'], 'the same words in another order'),
    synset('x3', ['echo'], 'an echo heard again'),
  ];
  const build = (seed: number) => buildGlossSet(candidates, { seed, pool: 1000, queries: 20, tokenize });

  it('is a function of its seed', () => expectSeeded(build, 'gloss'));

  it('keeps one synset per set of words, and asks no gloss that names its own words', () => {
    const set = build(5);
    expect(set.documents).toHaveLength(42);
    expect(set.documents.filter((d) => d === 'car, auto' || d === 'auto, car')).toHaveLength(1);
    for (const q of set.queries.gloss!) {
      const own = new Set(tokenize(set.documents[q.target]!));
      expect(tokenize(q.text).some((t) => own.has(t))).toBe(false);
    }
    expect(set.queries.gloss!.some((q) => q.text === 'an echo heard again')).toBe(false);
  });
});

describe('paraphrase set', () => {
  it('loads memories then distractors as documents; each query targets its memory', () => {
    const set = buildParaphraseSet({
      pairs: [
        { memory: 'Ann prefers green tea.', query: 'What does the user like to drink?', lexical: 'Does Ann prefer tea?' },
        { memory: 'Bob is allergic to peanuts.', query: 'Which foods could harm him?' },
      ],
      distractors: ['The drink machine is broken.'],
    });
    expect(set.documents).toEqual(['Ann prefers green tea.', 'Bob is allergic to peanuts.', 'The drink machine is broken.']);
    expect(set.queries.paraphrase!.map((q) => q.target)).toEqual([0, 1]);
    expect(set.queries['lexical twin']).toEqual([{ text: 'Does Ann prefer tea?', target: 0 }]);
    expect(() => buildParaphraseSet({ pairs: [], distractors: [] })).toThrow();
  });
});
