/**
 * Document sets over dense per-tenant document numbers, split in segments of 65,536 numbers (as roaring
 * bitmaps are). On disk a segment is a container: a sorted Uint16 array while it holds fewer than 4,096
 * numbers, else an 8 KiB bitset; the byte length tells them apart. In memory every segment is a bitset,
 * so and/or/not are word loops over at most 2,048 words per segment.
 */
export const SEG_SHIFT = 16;
export const SEG_SIZE = 1 << SEG_SHIFT;
const WORDS = SEG_SIZE >>> 5;
const BITSET_BYTES = WORDS * 4;
const ARRAY_MAX = 4095;

export type DocSet = Map<number, Uint32Array>;

export function segOf(docNo: number): number {
  return docNo >>> SEG_SHIFT;
}

/** Decodes a stored container into a bitset (a fresh copy: the input may be an LMDB buffer view). */
export function decodeContainer(bytes: Uint8Array): Uint32Array {
  const words = new Uint32Array(WORDS);
  if (bytes.byteLength === BITSET_BYTES) {
    new Uint8Array(words.buffer).set(bytes);
    return words;
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i + 1 < bytes.byteLength; i += 2) {
    const low = view.getUint16(i, true);
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

/** Adds or removes one number in a stored container; returns the new container (null: now empty). */
export function updateContainer(bytes: Uint8Array | undefined, docNo: number, present: boolean): Uint8Array | null {
  const words = bytes ? decodeContainer(bytes) : new Uint32Array(WORDS);
  const low = docNo & (SEG_SIZE - 1);
  if (present) words[low >>> 5]! |= 1 << (low & 31);
  else words[low >>> 5]! &= ~(1 << (low & 31));
  return encodeContainer(words);
}

export function containerCardinality(bytes: Uint8Array): number {
  return bytes.byteLength === BITSET_BYTES ? popcountWords(new Uint32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + BITSET_BYTES))) : bytes.byteLength >>> 1;
}

export function popcountWords(words: Uint32Array): number {
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

export function has(set: DocSet, docNo: number): boolean {
  const w = set.get(docNo >>> SEG_SHIFT);
  const low = docNo & (SEG_SIZE - 1);
  return w !== undefined && (w[low >>> 5]! & (1 << (low & 31))) !== 0;
}

export function addDoc(set: DocSet, docNo: number): void {
  const seg = docNo >>> SEG_SHIFT;
  let w = set.get(seg);
  if (!w) set.set(seg, (w = new Uint32Array(WORDS)));
  const low = docNo & (SEG_SIZE - 1);
  w[low >>> 5]! |= 1 << (low & 31);
}

/** All numbers of a set into an array, ascending (faster than the generator for large sets). */
export function toArray(set: DocSet): Uint32Array {
  const out = new Uint32Array(cardinality(set));
  let at = 0;
  for (const seg of [...set.keys()].sort((x, y) => x - y)) {
    const words = set.get(seg)!;
    const base = seg << SEG_SHIFT;
    for (let w = 0; w < WORDS; w++) {
      let word = words[w]!;
      while (word !== 0) {
        const bit = 31 - Math.clz32(word & -word);
        out[at++] = base | (w << 5) | bit;
        word &= word - 1;
      }
    }
  }
  return out;
}
