import type { CompiledLeaf } from '../plan/types.js';
import type { DocSet } from '../storage/docset.js';
import type { IndexReader } from '../storage/reader.js';
import { chunkHasMember, CHUNKS_PER_SEG, WORDS_PER_CHUNK, zoneMeets } from '../storage/zones.js';

/** A numeric range: values `v` with lo ≤ v ≤ hi (or < where open). */
interface Bounds {
  lo: number;
  hi: number;
  loOpen: boolean;
  hiOpen: boolean;
}

/** The bounds of a range leaf on a numeric field; null for other leaves (string ranges walk postings only). */
export function numericBounds(leaf: CompiledLeaf): Bounds | null {
  switch (leaf.op) {
    case 'gt':
    case 'gte':
      return typeof leaf.value === 'number' ? { lo: leaf.value, hi: Infinity, loOpen: leaf.op === 'gt', hiOpen: false } : null;
    case 'lt':
    case 'lte':
      return typeof leaf.value === 'number' ? { lo: -Infinity, hi: leaf.value, loOpen: false, hiOpen: leaf.op === 'lt' } : null;
    case 'between': {
      const [lo, hi] = leaf.value;
      return typeof lo === 'number' && typeof hi === 'number' ? { lo, hi, loOpen: false, hiOpen: false } : null;
    }
    default:
      return null;
  }
}

/**
 * The documents of `universe` whose value in numeric column `ver` lies within `bounds`: one chunk read per
 * 1,024 document numbers holding a member of the universe whose zone (`zones.ts`) meets the bounds, and
 * a comparison per document of those chunks, whatever the
 * number of distinct values in the range (a posting walk reads one entry per value and segment). Works
 * on the universe's bitset words directly. Missing values (NaN) never match.
 */
export function rangeFromColumn(reader: IndexReader, t: string, ver: string, bounds: Bounds, universe: DocSet): DocSet {
  const out: DocSet = new Map();
  const [lo, hi] = closedBounds(bounds);
  for (const [seg, words] of universe) {
    const matched = new Uint32Array(words.length);
    const zones = reader.zones(t, ver, seg);
    let any = false;
    for (let c = 0; c < CHUNKS_PER_SEG; c++) {
      const firstWord = c * WORDS_PER_CHUNK;
      if (!zoneMeets(zones, c, lo, hi) || !chunkHasMember(words, c)) continue;
      const column = reader.borrowNumericChunk(t, ver, seg * CHUNKS_PER_SEG + c); // read before the next chunk
      for (let w = 0; w < WORDS_PER_CHUNK; w++) {
        const members = words[firstWord + w]!;
        if (members === 0) continue;
        let hits = 0;
        // Without a branch per value: values in random order mispredict one, which made this loop 6x slower.
        for (let b = 0; b < 32; b++) {
          const v = column[w * 32 + b]!;
          hits |= (Number(v >= lo) & Number(v <= hi)) << b;
        }
        matched[firstWord + w] = hits & members;
        if ((hits & members) !== 0) any = true;
      }
    }
    if (any) out.set(seg, matched);
  }
  return out;
}

/**
 * The same bounds, both inclusive: an open bound moves to the next double inward, so `v > lo` is
 * `v >= nextUp(lo)` for every double `v` (NaN, a missing value, fails both comparisons either way).
 */
export function closedBounds({ lo, hi, loOpen, hiOpen }: Bounds): [number, number] {
  return [loOpen ? nextDouble(lo, 1) : lo, hiOpen ? nextDouble(hi, -1) : hi];
}

/** The next double after `x` towards +Infinity (`dir` 1) or -Infinity (-1); infinities stay. */
function nextDouble(x: number, dir: 1 | -1): number {
  if (!Number.isFinite(x)) return x;
  if (x === 0) return dir * Number.MIN_VALUE;
  const bits = new DataView(new ArrayBuffer(8));
  bits.setFloat64(0, x);
  // Moving away from zero increments the magnitude's bit pattern, towards zero decrements it.
  const away = x > 0 === (dir === 1);
  bits.setBigUint64(0, bits.getBigUint64(0) + (away ? 1n : -1n));
  return bits.getFloat64(0);
}

