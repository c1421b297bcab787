import type { CompiledLeaf } from '../plan/types.js';
import { addDoc, toArray, type DocSet } from '../storage/docset.js';
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
 * 1,024 document numbers and a comparison per document, whatever the number of distinct values in the
 * range (a posting walk reads one entry per value and segment). Missing values (NaN) never match.
 */
export function rangeFromColumn(reader: IndexReader, t: string, ver: string, bounds: Bounds, universe: DocSet): DocSet {
  const out: DocSet = new Map();
  const docs = toArray(universe);
  const { lo, hi, loOpen, hiOpen } = bounds;
  let chunkNo = -1;
  const column = new Float64Array(CHUNK_SIZE);
  for (let i = 0; i < docs.length; i++) {
    const d = docs[i]!;
    if (d >>> CHUNK_SHIFT !== chunkNo) reader.numericChunk(t, ver, (chunkNo = d >>> CHUNK_SHIFT), column);
    const v = column[d & (CHUNK_SIZE - 1)]!;
    if ((loOpen ? v > lo : v >= lo) && (hiOpen ? v < hi : v <= hi)) addDoc(out, d);
  }
  return out;
}
