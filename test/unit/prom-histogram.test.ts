import { describe, expect, it } from 'vitest';
import { quantileBetween, readBuckets } from '../../bench/lib/prom-histogram.js';

const exposition = (counts: [string, number][]) =>
  [
    '# HELP delay_seconds x',
    '# TYPE delay_seconds histogram',
    ...counts.map(([le, n]) => `delay_seconds_bucket{le="${le}"} ${n}`),
    `delay_seconds_sum 1`,
    `delay_seconds_count ${counts.at(-1)![1]}`,
    'other_bucket{le="0.01"} 999',
  ].join('\n');

describe("bench/lib/prom-histogram: a phase's quantile from two readings of a Prometheus histogram", () => {
  it('reads the cumulative buckets of the histogram named, ascending, +Inf last', () => {
    const buckets = readBuckets(exposition([['0.01', 5], ['0.005', 2], ['+Inf', 6]]), 'delay_seconds');
    expect(buckets).toEqual([
      { le: 0.005, count: 2 },
      { le: 0.01, count: 5 },
      { le: Infinity, count: 6 },
    ]);
  });

  it('counts only the samples between the readings, and interpolates within the bucket the rank falls in', () => {
    const before = readBuckets(exposition([['0.01', 100], ['0.02', 100], ['+Inf', 100]]), 'delay_seconds');
    // 100 new samples: 90 at or under 10 ms, 10 between 10 and 20 ms.
    const after = readBuckets(exposition([['0.01', 190], ['0.02', 200], ['+Inf', 200]]), 'delay_seconds');
    expect(quantileBetween(before, after, 0.5)).toEqual({ value: (0.01 * 50) / 90, samples: 100 });
    const p99 = quantileBetween(before, after, 0.99);
    expect(p99.samples).toBe(100);
    expect(p99.value).toBeCloseTo(0.01 + 0.01 * (9 / 10), 12);
  });

  it('answers the highest finite bound when the rank falls past it, and NaN without samples', () => {
    const none = readBuckets(exposition([['0.01', 0], ['+Inf', 0]]), 'delay_seconds');
    const late = readBuckets(exposition([['0.01', 1], ['+Inf', 10]]), 'delay_seconds');
    expect(quantileBetween(none, late, 0.99)).toEqual({ value: 0.01, samples: 10 });
    expect(quantileBetween(none, none, 0.99).value).toBeNaN();
  });
});
