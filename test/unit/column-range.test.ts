import { describe, expect, it } from 'vitest';
import { closedBounds } from '../../src/query/exec/column-range.js';

/** The column scan compares with inclusive bounds only; an open bound must exclude exactly its own value. */
describe('closedBounds', () => {
  const cases: Array<[number, boolean]> = [
    [1.5, true],
    [0, true],
    [-0, true],
    [-2.25, true],
    [7, true],
    [Number.MIN_VALUE, true],
    [-Number.MIN_VALUE, true],
    [Number.MAX_VALUE, true],
    [1e15 + 1, false],
  ];
  it.each(cases)('gt/lt %s keep every value a strict comparison keeps, and no other', (x, open) => {
    const [lo] = closedBounds({ lo: x, hi: Infinity, loOpen: open, hiOpen: false });
    const [, hi] = closedBounds({ lo: -Infinity, hi: x, loOpen: false, hiOpen: open });
    const around = [x, lo, hi, x + 1, x - 1, x * 2, 0, -0, Number.MIN_VALUE, -Number.MIN_VALUE, 1.5000000000000002, 1.4999999999999998];
    for (const v of around) {
      expect(v >= lo).toBe(open ? v > x : v >= x);
      expect(v <= hi).toBe(open ? v < x : v <= x);
    }
  });

  it('leaves infinite bounds and missing values (NaN) alone', () => {
    const [lo, hi] = closedBounds({ lo: -Infinity, hi: Infinity, loOpen: false, hiOpen: false });
    expect([lo, hi]).toEqual([-Infinity, Infinity]);
    const missing = Number.NaN;
    expect([missing >= lo, missing <= hi]).toEqual([false, false]);
  });
});
