import type { CompiledLeaf } from '../plan/types.js';
import { SEG_SHIFT, type DocSet } from '../storage/docset.js';
import { CHUNK_SHIFT, CHUNK_SIZE } from '../storage/layout.js';
import type { IndexReader } from '../storage/reader.js';

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
 * 1,024 document numbers holding a member of the universe, and a comparison per document, whatever the
 * number of distinct values in the range (a posting walk reads one entry per value and segment). Works
 * on the universe's bitset words directly. Missing values (NaN) never match.
 */
export function rangeFromColumn(reader: IndexReader, t: string, ver: string, bounds: Bounds, universe: DocSet): DocSet {
  const out: DocSet = new Map();
  const { lo, hi, loOpen, hiOpen } = bounds;
  const column = new Float64Array(CHUNK_SIZE);
  for (const [seg, words] of universe) {
    const matched = new Uint32Array(words.length);
    let any = false;
    for (let c = 0; c < CHUNKS_PER_SEG; c++) {
      const firstWord = c * WORDS_PER_CHUNK;
      if (!words.subarray(firstWord, firstWord + WORDS_PER_CHUNK).some((w) => w !== 0)) continue;
      reader.numericChunk(t, ver, (seg << (SEG_SHIFT - CHUNK_SHIFT)) + c, column);
      for (let w = 0; w < WORDS_PER_CHUNK; w++) {
        const members = words[firstWord + w]!;
        if (members === 0) continue;
        let hits = 0;
        for (let b = 0; b < 32; b++) {
          const v = column[w * 32 + b]!;
          if ((loOpen ? v > lo : v >= lo) && (hiOpen ? v < hi : v <= hi)) hits |= 1 << b;
        }
        matched[firstWord + w] = hits & members;
        if ((hits & members) !== 0) any = true;
      }
    }
    if (any) out.set(seg, matched);
  }
  return out;
}

const CHUNKS_PER_SEG = 1 << (SEG_SHIFT - CHUNK_SHIFT);
const WORDS_PER_CHUNK = CHUNK_SIZE >>> 5;
