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

  constructor(
    public dict: string[],
    public codes: Uint16Array,
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

  /** Drops dictionary entries no code uses, renumbering the codes (keeps the order of the rest). */
  compact(): void {
    const renumber = new Uint16Array(this.dict.length + 1);
    for (const code of this.codes) renumber[code] = 1;
    renumber[0] = 0;
    const dict: string[] = [];
    for (let i = 0; i < this.dict.length; i++) {
      if (renumber[i + 1] === 0) continue;
      dict.push(this.dict[i]!);
      renumber[i + 1] = dict.length;
    }
    for (let at = 0; at < this.codes.length; at++) this.codes[at] = renumber[this.codes[at]!]!;
    this.dict = dict;
    this.index = null;
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

export function decodeStringChunk(stored: Uint8Array): StringChunk {
  const bytes = Buffer.from(stored.buffer, stored.byteOffset, stored.byteLength);
  const n = bytes.readUInt32LE(0);
  const codesAt = 4 + 4 * n;
  const codes = new Uint16Array(CHUNK_SIZE);
  new Uint8Array(codes.buffer).set(bytes.subarray(codesAt, codesAt + 2 * CHUNK_SIZE));
  const text = bytes.toString('utf8', codesAt + 2 * CHUNK_SIZE);
  const dict = new Array<string>(n);
  let from = 0;
  for (let i = 0; i < n; i++) {
    const length = bytes.readUInt32LE(4 + 4 * i);
    dict[i] = text.slice(from, from + length);
    from += length;
  }
  return new StringChunk(dict, codes);
}
