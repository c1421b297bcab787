import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { splitPassages, splitPassagesToFit } from '../../src/domain/passages.js';
import { bestPerDocument, scoreOf } from '../../src/domain/search.js';

describe('splitPassages', () => {
  it('keeps short text whole and drops empty text', () => {
    expect(splitPassages('  hello world ')).toEqual([{ text: 'hello world', start: 0 }]);
    expect(splitPassages('   \n ')).toEqual([]);
  });

  it('cuts long text at sentence boundaries, with overlap, within the size bound', () => {
    const text = Array.from({ length: 40 }, (_, i) => `Sentence number ${i} is here.`).join(' ');
    const passages = splitPassages(text, { maxChars: 200, overlapChars: 40 });
    expect(passages.length).toBeGreaterThan(5);
    for (const p of passages) {
      expect(p.text.length).toBeLessThanOrEqual(200);
      expect(text.slice(p.start)).toContain(p.text.slice(0, 20));
    }
    expect(passages.slice(0, -1).every((p) => p.text.endsWith('.'))).toBe(true);
  });

  it('covers every word of any text (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.stringMatching(/^[a-z]{1,12}$/), { minLength: 1, maxLength: 400 }), (words) => {
        const text = words.join(' ');
        const passages = splitPassages(text, { maxChars: 120, overlapChars: 30 });
        const joined = passages.map((p) => p.text).join(' ');
        for (const w of words) expect(joined).toContain(w);
        for (const p of passages) expect(p.text.length).toBeLessThanOrEqual(120);
      }),
    );
  });
});

describe('ranking', () => {
  it('scores 0-100 from cosine distance, rounded to two places', () => {
    expect(scoreOf(0)).toBe(100);
    expect(scoreOf(0.12345)).toBe(87.66);
    expect(scoreOf(1.5)).toBe(0);
  });

  it('keeps the best passage per document, best first, within max_distance', () => {
    const hits = [
      { label: 1, docId: 'a', distance: 0.4 },
      { label: 2, docId: 'b', distance: 0.2 },
      { label: 3, docId: 'a', distance: 0.1 },
      { label: 4, docId: 'c', distance: 0.9 },
    ];
    expect(bestPerDocument(hits, 10).map((h) => h.label)).toEqual([3, 2, 4]);
    expect(bestPerDocument(hits, 1).map((h) => h.label)).toEqual([3]);
    expect(bestPerDocument(hits, 10, 0.5).map((h) => h.docId)).toEqual(['a', 'b']);
  });
});

describe('passages that fit a model window', () => {
  /** A stand-in tokenizer: one token per character of digits, one per word otherwise, plus [CLS] and [SEP]. */
  const window = {
    maxTokens: 64,
    count: async (texts: string[]) => texts.map((t) => 2 + t.split(/\s+/).reduce((n, w) => n + (/^\d+$/.test(w) ? w.length : 1), 0)),
  };

  it('leaves prose that fits as the character split made it', async () => {
    const prose = 'A short sentence about herons. '.repeat(3);
    expect(await splitPassagesToFit(prose, window, { maxChars: 200, overlapChars: 20 })).toEqual(splitPassages(prose, { maxChars: 200, overlapChars: 20 }));
  });

  it('splits dense text again until every passage fits, keeping every word', async () => {
    const dense = Array.from({ length: 40 }, (_, i) => `${1000000 + i} code`).join(' ');
    const passages = await splitPassagesToFit(dense, window, { maxChars: 400, overlapChars: 40 });
    const counts = await window.count(passages.map((p) => p.text));
    expect(Math.max(...counts)).toBeLessThanOrEqual(window.maxTokens);
    const words = new Set(passages.flatMap((p) => p.text.split(' ')));
    for (const word of dense.split(' ')) expect(words.has(word)).toBe(true);
    for (const p of passages) expect(dense.slice(p.start)).toContain(p.text.slice(0, 10));
  });
});
