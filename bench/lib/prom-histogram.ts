/**
 * A Prometheus histogram read from exposition text: its cumulative bucket counts, and the quantile of the
 * samples observed between two readings, interpolated within a bucket as PromQL's `histogram_quantile` does.
 */
export type Buckets = Array<{ le: number; count: number }>;

/** The unlabelled histogram `name`'s buckets (`name_bucket{le="…"}` lines), ascending. */
export function readBuckets(text: string, name: string): Buckets {
  const prefix = `${name}_bucket{le="`;
  const buckets: Buckets = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith(prefix)) continue;
    const le = line.slice(prefix.length, line.indexOf('"', prefix.length));
    buckets.push({ le: le === '+Inf' ? Infinity : Number(le), count: Number(line.slice(line.lastIndexOf(' ') + 1)) });
  }
  return buckets.sort((a, b) => a.le - b.le);
}

/** The q-quantile (0..1) of the samples counted after `before` up to `after`; NaN without samples. */
export function quantileBetween(before: Buckets, after: Buckets, q: number): { value: number; samples: number } {
  const counts = after.map((b, i) => ({ le: b.le, count: b.count - (before[i]?.count ?? 0) }));
  const samples = counts.at(-1)?.count ?? 0;
  if (samples === 0) return { value: Number.NaN, samples };
  const rank = q * samples;
  let lower = 0;
  let below = 0;
  for (const { le, count } of counts) {
    if (count >= rank) {
      // The highest finite bound when the rank falls in +Inf, as histogram_quantile answers.
      if (le === Infinity) return { value: lower, samples };
      return { value: lower + (le - lower) * ((rank - below) / Math.max(1, count - below)), samples };
    }
    lower = le;
    below = count;
  }
  return { value: lower, samples };
}
