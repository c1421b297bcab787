import { SEG_SHIFT } from './docset.js';
import { CHUNK_SHIFT, CHUNK_SIZE } from './layout.js';

/**
 * Zone maps of numeric columns: per chunk of CHUNK_SIZE documents, the minimum and maximum of its present
 * values, so a range, an equality or a sort on the column reads only the chunks that can hold an answer.
 * One entry per 65,536-document segment: a Float64Array of [min, max] pairs, one pair per chunk.
 *
 * A zone is exact or wider, never narrower: the writer recomputes a chunk's pair from the whole chunk each
 * time it writes the chunk. A chunk without a pair (a store written before zone maps, or a segment entry
 * made after some of its chunks were written) reads as UNKNOWN, [-Infinity, +Infinity]: always read.
 * A chunk with no present value is [+Infinity, -Infinity], which no range meets.
 */
export const CHUNKS_PER_SEG = 1 << (SEG_SHIFT - CHUNK_SHIFT);
/** 32-bit words of a segment's bitset per chunk. */
export const WORDS_PER_CHUNK = CHUNK_SIZE >>> 5;

/** Whether chunk `c` (its index in the segment) holds a member of the segment's bitset `words`. */
export function chunkHasMember(words: Uint32Array, c: number): boolean {
  for (let w = c * WORDS_PER_CHUNK, end = w + WORDS_PER_CHUNK; w < end; w++) if (words[w] !== 0) return true;
  return false;
}

/** The zones of a segment nobody wrote: every chunk unknown. */
export function unknownZones(): Float64Array {
  const zones = new Float64Array(2 * CHUNKS_PER_SEG);
  for (let c = 0; c < CHUNKS_PER_SEG; c++) {
    zones[2 * c] = -Infinity;
    zones[2 * c + 1] = Infinity;
  }
  return zones;
}

/** A segment's zones as stored (copied out of LMDB's buffer, aligned), or every chunk unknown when absent. */
export function storedZones(stored: Uint8Array | undefined): Float64Array {
  return stored ? new Float64Array(new Uint8Array(stored).buffer) : unknownZones();
}

/** Sets chunk `chunkNo`'s pair in its segment's zones from the chunk's values (NaN = missing, ignored). */
export function setZone(zones: Float64Array, chunkNo: number, values: Float64Array): void {
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < CHUNK_SIZE; i++) {
    const v = values[i]!;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  const c = chunkNo & (CHUNKS_PER_SEG - 1);
  zones[2 * c] = min;
  zones[2 * c + 1] = max;
}

/** Whether chunk `c` (its index in the segment) may hold a value in [lo, hi]. */
export const zoneMeets = (zones: Float64Array, c: number, lo: number, hi: number): boolean => zones[2 * c]! <= hi && zones[2 * c + 1]! >= lo;
