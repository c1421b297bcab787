/**
 * Document sets over dense per-tenant document numbers, split in segments of 65,536 numbers (as roaring
 * bitmaps are). On disk a segment is a container: a sorted little-endian Uint16 array while it holds fewer
 * than 4,096 numbers, else an 8 KiB bitset; the byte length tells them apart. In memory every segment is
 * a bitset, so and/or/not are word loops over at most 2,048 words per segment.
 *
 * This file is the one place that knows the container format: every read and write of a container goes
 * through the codec below (docs/query.md, "Why these containers", measures it against `roaring`).
 */
import type { BitDelta } from './bit-delta.js';

export const SEG_SHIFT = 16;
export const SEG_SIZE = 1 << SEG_SHIFT;
const WORDS = SEG_SIZE >>> 5;
const BITSET_BYTES = WORDS * 4;
/** Largest array container; one more member and the bitset is smaller. */
const ARRAY_MAX = 4095;

export type DocSet = Map<number, Uint32Array>;

const isBitset = (bytes: Uint8Array): boolean => bytes.byteLength === BITSET_BYTES;

/** The array container's `i`-th member (little-endian Uint16). */
const arrayAt = (bytes: Uint8Array, i: number): number => bytes[i * 2]! | (bytes[i * 2 + 1]! << 8);

// --- the container codec ---

/** Decodes a stored container into a bitset (a fresh copy: the input may be an LMDB buffer view). */
export function decodeContainer(bytes: Uint8Array): Uint32Array {
  const words = new Uint32Array(WORDS);
  if (isBitset(bytes)) {
    new Uint8Array(words.buffer).set(bytes);
    return words;
  }
  for (let i = 0; i + 1 < bytes.byteLength; i += 2) {
    const low = arrayAt(bytes, i >>> 1);
    words[low >>> 5]! |= 1 << (low & 31);
  }
  return words;
}

/** Encodes a bitset as the smaller container; returns null when it is empty (the key is then removed). */
export function encodeContainer(words: Uint32Array): Uint8Array | null {
  const n = popcountWords(words);
  if (n === 0) return null;
  if (n > ARRAY_MAX) return new Uint8Array(words.buffer.slice(words.byteOffset, words.byteOffset + BITSET_BYTES));
  const out = new Uint8Array(n * 2);
  const view = new DataView(out.buffer);
  let at = 0;
  for (let w = 0; w < WORDS; w++) {
    let word = words[w]!;
    while (word !== 0) {
      const bit = 31 - Math.clz32(word & -word);
      view.setUint16(at, (w << 5) | bit, true);
      at += 2;
      word &= word - 1;
    }
  }
  return out;
}

/** Whether a stored container holds `low` (a number within its segment), without decoding it. */
export function containerHas(bytes: Uint8Array, low: number): boolean {
  if (isBitset(bytes)) return (bytes[low >>> 3]! & (1 << (low & 7))) !== 0;
  let lo = 0;
  let hi = (bytes.byteLength >>> 1) - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = arrayAt(bytes, mid);
    if (v === low) return true;
    if (v < low) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

/**
 * Applies bit changes to a stored container. An array container with few changes is merged as sorted
 * lists (no 8 KiB bitset while the container stays an array), so a single document's write costs
 * O(container length). Returns the new container, or null when it is now empty.
 */
export function applyDelta(stored: Uint8Array | null, delta: BitDelta): Uint8Array | null {
  const storedBitset = stored !== null && isBitset(stored);
  if (storedBitset || delta.isBits) {
    const words = stored ? decodeContainer(stored) : new Uint32Array(WORDS);
    const removed = delta.applyTo(words);
    // A bitset with only additions stays above the array limit: skip counting and keep the bitset.
    return storedBitset && !removed ? new Uint8Array(words.buffer) : encodeContainer(words);
  }
  const n = stored ? stored.byteLength >>> 1 : 0;
  const changes = delta.sorted();
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < changes.length) {
    const s = i < n ? arrayAt(stored!, i) : Infinity;
    const c = j < changes.length ? changes[j]![0] : Infinity;
    if (s < c) {
      out.push(s);
      i++;
    } else {
      if (changes[j]![1]) out.push(c);
      if (s === c) i++;
      j++;
    }
  }
  if (out.length === 0) return null;
  if (out.length > ARRAY_MAX) {
    const words = new Uint32Array(WORDS);
    for (const low of out) words[low >>> 5]! |= 1 << (low & 31);
    return encodeContainer(words);
  }
  const bytes = new Uint8Array(out.length * 2);
  for (let k = 0; k < out.length; k++) {
    bytes[k * 2] = out[k]! & 0xff;
    bytes[k * 2 + 1] = out[k]! >>> 8;
  }
  return bytes;
}

/** ORs one stored container into segment `seg` of a set, without an intermediate bitset. */
export function orContainer(set: DocSet, seg: number, bytes: Uint8Array): void {
  let words = set.get(seg);
  if (!words) set.set(seg, (words = new Uint32Array(WORDS)));
  if (isBitset(bytes)) {
    const src = new Uint32Array(new Uint8Array(bytes).buffer);
    for (let i = 0; i < WORDS; i++) words[i]! |= src[i]!;
    return;
  }
  for (let i = 0; i + 1 < bytes.byteLength; i += 2) {
    const low = arrayAt(bytes, i >>> 1);
    words[low >>> 5]! |= 1 << (low & 31);
  }
}

/** Calls `fn` with each document number of a stored container of segment `seg`, ascending. */
export function forEachInContainer(seg: number, bytes: Uint8Array, fn: (docNo: number) => void): void {
  const base = seg << SEG_SHIFT;
  if (isBitset(bytes)) {
    const words = new Uint32Array(new Uint8Array(bytes).buffer);
    for (let w = 0; w < words.length; w++) {
      let word = words[w]!;
      while (word !== 0) {
        fn(base | (w << 5) | (31 - Math.clz32(word & -word)));
        word &= word - 1;
      }
    }
    return;
  }
  for (let i = 0; i + 1 < bytes.byteLength; i += 2) fn(base | arrayAt(bytes, i >>> 1));
}

// --- set algebra over in-memory sets ---

function popcountWords(words: Uint32Array): number {
  let n = 0;
  for (let i = 0; i < words.length; i++) {
    let v = words[i]!;
    v -= (v >>> 1) & 0x55555555;
    v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
    n += (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
  }
  return n;
}

export function cardinality(set: DocSet): number {
  let n = 0;
  for (const words of set.values()) n += popcountWords(words);
  return n;
}

/**
 * The set cut between two segments into an earlier and a later part holding about half its members each
 * (the first segments whose members reach half), or null when it holds fewer than `min` members or lies
 * in one segment. Which cut depends on the members only, so the same set is always cut the same way.
 */
export function splitInHalves(set: DocSet, min: number): [DocSet, DocSet] | null {
  if (set.size < 2) return null;
  const segs = [...set.keys()].sort((x, y) => x - y);
  const counts = segs.map((seg) => popcountWords(set.get(seg)!));
  const total = counts.reduce((a, b) => a + b, 0);
  if (total < min) return null;
  let cut = 1;
  for (let sum = counts[0]!; cut < segs.length - 1 && sum * 2 < total; cut++) sum += counts[cut]!;
  const part = (from: number, to: number): DocSet => new Map(segs.slice(from, to).map((seg) => [seg, set.get(seg)!]));
  return [part(0, cut), part(cut, segs.length)];
}

/** Whether one segment's bitset holds `docNo` (the caller looked the segment up once, for many numbers). */
export function segmentHas(words: Uint32Array, docNo: number): boolean {
  const low = docNo & (SEG_SIZE - 1);
  return (words[low >>> 5]! & (1 << (low & 31))) !== 0;
}

/** ORs `source` into `target` (mutates target). */
export function orInto(target: DocSet, source: DocSet): DocSet {
  for (const [seg, words] of source) {
    const t = target.get(seg);
    if (!t) target.set(seg, words.slice());
    else for (let i = 0; i < WORDS; i++) t[i]! |= words[i]!;
  }
  return target;
}

export function and(a: DocSet, b: DocSet): DocSet {
  const out: DocSet = new Map();
  for (const [seg, wa] of a) {
    const wb = b.get(seg);
    if (!wb) continue;
    const w = new Uint32Array(WORDS);
    let any = 0;
    for (let i = 0; i < WORDS; i++) any |= w[i] = wa[i]! & wb[i]!;
    if (any !== 0) out.set(seg, w);
  }
  return out;
}

/** `a` without the members of `b`. */
export function andNot(a: DocSet, b: DocSet): DocSet {
  const out: DocSet = new Map();
  for (const [seg, wa] of a) {
    const wb = b.get(seg);
    if (!wb) {
      out.set(seg, wa);
      continue;
    }
    const w = new Uint32Array(WORDS);
    let any = 0;
    for (let i = 0; i < WORDS; i++) any |= w[i] = wa[i]! & ~wb[i]!;
    if (any !== 0) out.set(seg, w);
  }
  return out;
}

export function addDoc(set: DocSet, docNo: number): void {
  const seg = docNo >>> SEG_SHIFT;
  let w = set.get(seg);
  if (!w) set.set(seg, (w = new Uint32Array(WORDS)));
  const low = docNo & (SEG_SIZE - 1);
  w[low >>> 5]! |= 1 << (low & 31);
}

/** All numbers of a set into an array, ascending (faster than a generator for large sets). */
export function toArray(set: DocSet): Uint32Array {
  const out = new Uint32Array(cardinality(set));
  let at = 0;
  forEachBlock(set, SEG_SHIFT, (block, lows, n) => {
    for (let i = 0; i < n; i++) out[at++] = (block << SEG_SHIFT) | lows[i]!;
  });
  return out;
}

/**
 * Visits the members of a set in ascending order, by blocks of 2^`shift` numbers (shift 5 to 16): `fn`
 * gets each block holding members with their offsets in it (`lows[0..n)`, ascending; read-only). Column loops take
 * a set this way, one block per column chunk, without an array of every member.
 */
export function forEachBlock(set: DocSet, shift: number, fn: (block: number, lows: Uint16Array, n: number) => void): void {
  const wordsPerBlock = 1 << (shift - 5);
  const lows = new Uint16Array(1 << shift);
  for (const seg of [...set.keys()].sort((x, y) => x - y)) {
    const words = set.get(seg)!;
    for (let first = 0; first < WORDS; first += wordsPerBlock) {
      if (isFull(words, first, wordsPerBlock)) {
        // A block holding every number (an unfiltered query's) gets its offsets as they are, not bit by bit.
        fn(((seg << SEG_SHIFT) + (first << 5)) >>> shift, everyOffset(shift), 1 << shift);
        continue;
      }
      let n = 0;
      for (let w = first; w < first + wordsPerBlock; w++) {
        let word = words[w]!;
        while (word !== 0) {
          const bit = 31 - Math.clz32(word & -word);
          lows[n++] = ((w - first) << 5) | bit;
          word &= word - 1;
        }
      }
      if (n > 0) fn(((seg << SEG_SHIFT) + (first << 5)) >>> shift, lows, n);
    }
  }
}

/** 0 to 2^`shift` - 1 in order, made once per shift; callers only read it. */
const everyOffsets = new Map<number, Uint16Array>();
function everyOffset(shift: number): Uint16Array {
  let offsets = everyOffsets.get(shift);
  if (!offsets) everyOffsets.set(shift, (offsets = Uint16Array.from({ length: 1 << shift }, (_, i) => i)));
  return offsets;
}

/** Whether words `[first, first + count)` have every bit set. */
function isFull(words: Uint32Array, first: number, count: number): boolean {
  for (let w = first; w < first + count; w++) if (words[w] !== 0xffffffff) return false;
  return true;
}
