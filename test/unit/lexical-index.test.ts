import { describe, expect, it } from 'vitest';
import { fused, idf, poolStats, termScore, zScore, zToScore } from '../../src/domain/fusion.js';
import { LexicalIndex } from '../../src/search/lexical-index.js';

const ranked = (index: LexicalIndex, query: string) =>
  index.score(query).top(100).map(([label]) => index.docOf(label));

describe('LexicalIndex (BM25 over the project tokenizer)', () => {
  it('gives the BM25 value of Okapi (k1 1.2, b 0.75) computed by hand', () => {
    const index = new LexicalIndex();
    index.add(0, 'a', 'heron heron river');
    index.add(1, 'b', 'river bank');
    index.add(2, 'c', 'invoice due');
    const scores = index.score('heron');
    // 3 passages, 1 holds "heron" twice; lengths 3, 2, 2 → mean 7/3.
    const expected = (Math.log(1 + (3 - 1 + 0.5) / (1 + 0.5)) * 2 * 2.2) / (2 + 1.2 * (0.25 + (0.75 * 3) / (7 / 3)));
    expect(scores.get(0)).toBeCloseTo(expected, 10);
    expect(scores.get(1)).toBe(0);
    expect(scores.touched).toEqual([0]);
    expect(scores.stats.mean).toBeCloseTo(expected / 3, 10);
  });

  it('scores a word by its count in each passage that holds it, the first passage and the later ones alike', () => {
    const index = new LexicalIndex();
    // Every passage 6 terms long, "heron" 1 to 6 times in it.
    for (let label = 0; label < 6; label++) index.add(label, `d${label}`, [...Array(label + 1).fill('heron'), ...['river', 'stone', 'cloud', 'maple', 'grass'].slice(0, 5 - label)].join(' '));
    const scores = index.score('heron');
    for (let label = 0; label < 6; label++) expect(scores.get(label)).toBeCloseTo(termScore(idf(6, 6), label + 1, 6, 6), 10);
    expect(ranked(index, 'heron')).toEqual(['d5', 'd4', 'd3', 'd2', 'd1', 'd0']);
  });

  it('ranks the passage with the rare word above those with only common ones, and folds plurals and case', () => {
    const index = new LexicalIndex();
    const common = ['the meeting is on monday', 'the meeting moved to tuesday', 'monday meeting notes', 'Herons nest by the river'];
    common.forEach((text, label) => index.add(label, `d${label}`, text));
    expect(ranked(index, 'heron meeting')[0]).toBe('d3');
    expect(ranked(index, 'HERON')).toEqual(['d3']);
  });

  it('forgets a hard-deleted passage, and stays exact across the compaction that follows many deletes', () => {
    const index = new LexicalIndex();
    for (let label = 0; label < 40; label++) index.add(label, `d${label}`, label % 2 ? `odd word${label} shared` : `even word${label} shared`);
    index.remove(3);
    expect(ranked(index, 'word3')).toEqual([]);
    expect(index.docOf(3)).toBeUndefined();
    // The eleventh delete of 40 passes the compaction ratio (a quarter).
    for (let label = 0; label < 20; label += 2) index.remove(label);
    const fresh = new LexicalIndex();
    for (let label = 0; label < 40; label++) if (index.has(label)) fresh.add(label, `d${label}`, label % 2 ? `odd word${label} shared` : `even word${label} shared`);
    expect(index.size).toBe(fresh.size);
    // After compaction the document frequencies are those of the live passages again.
    const a = index.score('shared odd word31');
    const b = fresh.score('shared odd word31');
    expect(a.top(100)).toEqual(b.top(100));
    expect(a.stats).toEqual(b.stats);
  });

  it('says how much of the query a passage holds, by idf mass (a word no passage has counts in the query)', () => {
    const index = new LexicalIndex();
    index.add(0, 'a', 'green tea');
    index.add(1, 'b', 'green grass');
    index.add(2, 'c', 'black coffee');
    index.add(3, 'd', 'tea party');
    const scores = index.score('green tea zebra');
    const [green, tea, zebra] = [idf(4, 2), idf(4, 2), idf(4, 0)];
    expect(scores.coverage(0)).toBeCloseTo((green + tea) / (green + tea + zebra), 12);
    expect(scores.coverage(1)).toBeCloseTo(green / (green + tea + zebra), 12);
    expect(scores.coverage(2)).toBe(0);
    expect(index.score('green tea').coverage(0)).toBeCloseTo(1, 12);
  });

  it('adding a label twice changes nothing', () => {
    const index = new LexicalIndex();
    index.add(0, 'a', 'green tea');
    const before = index.score('tea');
    index.add(0, 'a', 'green tea');
    expect(index.score('tea').top(5)).toEqual(before.top(5));
    expect(index.size).toBe(1);
  });
});

describe('top-n selection', () => {
  it('equals a full sort (value descending, label ascending on ties) with and without a filter', () => {
    const index = new LexicalIndex();
    const words = ['alpha', 'beta', 'gamma', 'delta'];
    for (let label = 0; label < 300; label++) index.add(label, `d${label}`, Array.from({ length: 1 + (label % 7) }, (_, i) => words[(label * (i + 1)) % 4]).join(' '));
    const scores = index.score('alpha gamma');
    const all = scores.touched.map((l) => [l, scores.get(l)] as [number, number]).sort((a, b) => b[1] - a[1] || a[0] - b[0]);
    for (const n of [1, 5, 50, 1000]) expect(scores.top(n)).toEqual(all.slice(0, n));
    expect(scores.top(10, (l) => l % 3 === 0)).toEqual(all.filter(([l]) => l % 3 === 0).slice(0, 10));
  });
});

describe('fusion rules', () => {
  it('z-scores against the whole pool, zero when the pool does not vary', () => {
    const stats = poolStats(4, 8, 4 * 4 + 4); // values 1, 1, 3, 3 → mean 2, std 1
    expect(stats).toEqual({ mean: 2, std: 1 });
    expect(zScore(3, stats)).toBe(1);
    expect(zScore(5, poolStats(3, 15, 75))).toBe(0);
  });

  it('maps fused values onto 0-100 monotonically, 50 at two standard deviations', () => {
    const values = [-3, -1, 0, 1, 2, 3, 5, 8, 20];
    const scores = values.map(zToScore);
    expect(scores).toEqual([...scores].sort((a, b) => a - b));
    expect(zToScore(2)).toBe(50);
    expect(scores.every((s) => s >= 0 && s <= 100)).toBe(true);
  });

  it('weighs the lexical z-score by coverage, and caps it', () => {
    expect(fused(2, 5, 1)).toBeGreaterThan(fused(2, 5, 0.5));
    expect(fused(2, 5, 0)).toBe(fused(2, 0, 1));
    expect(fused(0, 50, 1)).toBe(fused(0, 8, 1));
    expect(fused(3, 0, 1)).toBeGreaterThan(fused(2, 0, 1));
  });

  it('BM25 term value saturates in the count and falls with length', () => {
    const rare = idf(100, 1);
    expect(termScore(rare, 2, 10, 10)).toBeGreaterThan(termScore(rare, 1, 10, 10));
    expect(termScore(rare, 20, 10, 10)).toBeLessThan(rare * 2.2);
    expect(termScore(rare, 1, 40, 10)).toBeLessThan(termScore(rare, 1, 10, 10));
  });
});
