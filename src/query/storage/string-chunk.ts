import { CHUNK_SIZE } from './layout.js';

/** Codes are Uint16 and 0 means missing, so a dictionary holds at most this many entries. */
const MAX_ENTRIES = 0xffff;

/**
 * One chunk (CHUNK_SIZE documents) of a `string` column, dictionary-encoded: `codes[at]` is 0 for a
 * missing value, else 1 + the index of the document's value in `dict`. Group-bys and filters loop over
 * the codes and look at each distinct string once per chunk, instead of decoding one string per document.
 * A dictionary may hold values no document uses any more (after writes); `encode` drops them.
 */
export class StringChunk {
  /** Value → code, built on the first write only (readers never need it). */
  private index: Map<string, number> | null = null;

  /**
   * @param dictBytes the stored dictionary (count, lengths and text) this chunk was decoded from, to
   * recognise the same dictionary in the next chunk; null once changed
   */
  constructor(
    public dict: string[],
    public codes: Uint16Array,
    public dictBytes: { head: Buffer; text: Buffer } | null = null,
  ) {}

  static empty(): StringChunk {
    return new StringChunk([], new Uint16Array(CHUNK_SIZE));
  }

  get(at: number): string | null {
    const code = this.codes[at]!;
    return code === 0 ? null : this.dict[code - 1]!;
  }

  set(at: number, value: string | null): void {
    if (value === null) {
      this.codes[at] = 0;
      return;
    }
    this.codes[at] = 0;
    if (this.dictBytes) {
      // The dictionary may be shared with other decoded chunks (see decodeStringChunk): change a copy.
      this.dict = [...this.dict];
      this.dictBytes = null;
    }
    let code = this.valueIndex().get(value);
    if (code === undefined) {
      if (this.dict.length === MAX_ENTRIES) this.compact();
      this.dict.push(value);
      code = this.dict.length;
      this.valueIndex().set(value, code);
    }
    this.codes[at] = code;
  }

  private valueIndex(): Map<string, number> {
    return (this.index ??= new Map(this.dict.map((v, i) => [v, i + 1])));
  }

  isEmpty(): boolean {
    return this.codes.every((c) => c === 0);
  }

  /**
   * Drops dictionary entries no code uses and sorts the rest, renumbering the codes: chunks that hold
   * the same values then store the same dictionary bytes, which a reader recognises and decodes once.
   */
  compact(): void {
    const used = new Uint8Array(this.dict.length + 1);
    for (const code of this.codes) used[code] = 1;
    const kept: number[] = [];
    for (let i = 0; i < this.dict.length; i++) if (used[i + 1]) kept.push(i);
    kept.sort((a, b) => (this.dict[a]! < this.dict[b]! ? -1 : 1));
    const renumber = new Uint16Array(this.dict.length + 1);
    kept.forEach((i, k) => (renumber[i + 1] = k + 1));
    for (let at = 0; at < this.codes.length; at++) this.codes[at] = renumber[this.codes[at]!]!;
    this.dict = kept.map((i) => this.dict[i]!);
    this.index = null;
    this.dictBytes = null;
  }
}

/**
 * Bytes of a chunk: `[n: u32][n UTF-16 lengths: u32][CHUNK_SIZE codes: u16][the n strings joined, UTF-8]`,
 * native byte order like the numeric columns. The lengths count UTF-16 units, so the joined strings are
 * decoded in one call and cut apart with `slice`.
 */
export function encodeStringChunk(chunk: StringChunk): Buffer {
  chunk.compact();
  const n = chunk.dict.length;
  const text = Buffer.from(chunk.dict.join(''), 'utf8');
  const codesAt = 4 + 4 * n;
  const out = Buffer.allocUnsafe(codesAt + 2 * CHUNK_SIZE + text.length);
  out.writeUInt32LE(n, 0);
  for (let i = 0; i < n; i++) out.writeUInt32LE(chunk.dict[i]!.length, 4 + 4 * i);
  Buffer.from(chunk.codes.buffer, chunk.codes.byteOffset, chunk.codes.byteLength).copy(out, codesAt);
  text.copy(out, codesAt + 2 * CHUNK_SIZE);
  return out;
}

/**
 * Decodes a chunk (copying what it keeps: `stored` may be LMDB's reused buffer). When `previous` was
 * decoded from the same dictionary bytes, its `dict` array is reused as it is: no strings are decoded, and
 * callers can tell by identity that the values are the same.
 */
export function decodeStringChunk(stored: Uint8Array, previous?: StringChunk): StringChunk {
  const bytes = Buffer.from(stored.buffer, stored.byteOffset, stored.byteLength);
  const n = bytes.readUInt32LE(0);
  const codesAt = 4 + 4 * n;
  const textAt = codesAt + 2 * CHUNK_SIZE;
  const codes = new Uint16Array(CHUNK_SIZE);
  new Uint8Array(codes.buffer).set(bytes.subarray(codesAt, textAt));
  const head = bytes.subarray(0, codesAt);
  const textBytes = bytes.subarray(textAt);
  const known = previous?.dictBytes;
  if (known && known.head.equals(head) && known.text.equals(textBytes)) return new StringChunk(previous.dict, codes, known);
  const text = textBytes.toString('utf8');
  const dict = new Array<string>(n);
  let from = 0;
  for (let i = 0; i < n; i++) {
    const length = bytes.readUInt32LE(4 + 4 * i);
    dict[i] = text.slice(from, from + length);
    from += length;
  }
  return new StringChunk(dict, codes, { head: Buffer.from(head), text: Buffer.from(textBytes) });
}
