import type { SortKey } from '../plan/types.js';
import type { DocSet } from '../storage/docset.js';
import { CHUNK_SIZE } from '../storage/layout.js';
import type { IndexReader } from '../storage/reader.js';
import { chunkHasMember, CHUNKS_PER_SEG, WORDS_PER_CHUNK } from '../storage/zones.js';
import { MaxHeap } from './heap.js';

/**
 * The candidates that can be among the first `want` in the order of `key`, a numeric column kept without
 * postings (`hasPostings`): every candidate whose value is at least as good as the `want`-th best value
 * (ties at it included, for the caller to order by the other keys and doc_id). Chunks are visited best
 * zone first (`zones.ts`: highest maximum for `desc`, lowest minimum for `asc`), and the visit stops at
 * the first chunk whose best value is strictly worse than the `want`-th best so far: newest first over a
 * million documents reads one or two chunks. Null when fewer than `want` candidates hold a value (the
 * caller's heap over every candidate then places the missing ones, last).
 */
export function bestByColumn(reader: IndexReader, t: string, key: SortKey, matched: DocSet, want: number): number[] | null {
  const desc = key.dir === 'desc';
  const ver = key.field.ver;
  /** Whether `a` sorts strictly before `b`. */
  const before = (a: number, b: number) => (desc ? a > b : a < b);
  const chunks: Array<{ chunkNo: number; bound: number; words: Uint32Array; c: number }> = [];
  for (const [seg, words] of matched) {
    const zones = reader.zones(t, ver, seg);
    for (let c = 0; c < CHUNKS_PER_SEG; c++) {
      const [min, max] = [zones[2 * c]!, zones[2 * c + 1]!];
      // min > max: no value in the chunk, its candidates are missing (they only count when too few hold one).
      if (min > max || !chunkHasMember(words, c)) continue;
      chunks.push({ chunkNo: seg * CHUNKS_PER_SEG + c, bound: desc ? max : min, words, c });
    }
  }
  chunks.sort((a, b) => (before(a.bound, b.bound) ? -1 : before(b.bound, a.bound) ? 1 : 0));
  const docs: number[] = [];
  const values: number[] = [];
  // The best `want` values seen, the worst of them on top.
  const heap = new MaxHeap((i, j) => (before(values[i]!, values[j]!) ? -1 : before(values[j]!, values[i]!) ? 1 : 0));
  for (const { chunkNo, bound, words, c } of chunks) {
    if (heap.size >= want && before(values[heap.top()]!, bound)) break;
    const column = reader.borrowNumericChunk(t, ver, chunkNo); // read before the next chunk
    for (let w = 0; w < WORDS_PER_CHUNK; w++) {
      let word = words[c * WORDS_PER_CHUNK + w]!;
      while (word !== 0) {
        const at = (w << 5) | (31 - Math.clz32(word & -word));
        word &= word - 1;
        const v = column[at]!;
        if (Number.isNaN(v) || (heap.size >= want && before(values[heap.top()]!, v))) continue;
        docs.push(chunkNo * CHUNK_SIZE + at);
        values.push(v);
        if (heap.size < want) heap.push(values.length - 1);
        else if (before(v, values[heap.top()]!)) heap.replaceTop(values.length - 1);
      }
    }
  }
  if (heap.size < want) return null;
  const threshold = values[heap.top()]!;
  return docs.filter((_, i) => !before(threshold, values[i]!));
}
