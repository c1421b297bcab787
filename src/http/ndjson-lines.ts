import { AppError, invalidInput } from '../errors.js';

/** One line of an NDJSON body: its number (from 1) and its text. */
export interface NdjsonLine {
  number: number;
  text: string;
}

/**
 * Splits a byte stream into the lines of NDJSON as they arrive, so a body of any size is read in the memory
 * of one line: `\n` ends a line (a `\r` before it is dropped), a last line needs no `\n`, and blank lines
 * are skipped (but counted, so numbers match an editor's). Thrown: 413 naming the line when one grows past
 * `maxBytes` (before it is read whole), 400 when a line is not UTF-8.
 */
export async function* ndjsonLines(source: AsyncIterable<Uint8Array>, maxBytes: number): AsyncGenerator<NdjsonLine> {
  let parts: Uint8Array[] = [];
  let size = 0;
  let number = 1;
  const take = (last: Uint8Array): NdjsonLine | null => {
    const bytes = parts.length === 0 ? last : Buffer.concat([...parts, last]);
    parts = [];
    size = 0;
    const line = number++;
    const end = bytes.at(-1) === CR ? bytes.length - 1 : bytes.length;
    if (end === 0) return null;
    return { number: line, text: decode(bytes.subarray(0, end), line) };
  };
  for await (const chunk of source) {
    let from = 0;
    for (let nl = chunk.indexOf(LF); nl !== -1; nl = chunk.indexOf(LF, from)) {
      checkSize(size + nl - from, maxBytes, number);
      const line = take(chunk.subarray(from, nl));
      if (line) yield line;
      from = nl + 1;
    }
    if (from < chunk.length) {
      size += chunk.length - from;
      checkSize(size, maxBytes, number);
      parts.push(chunk.subarray(from));
    }
  }
  if (size > 0) {
    const line = take(new Uint8Array(0));
    if (line) yield line;
  }
}

const LF = 0x0a;
const CR = 0x0d;
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

function checkSize(size: number, maxBytes: number, line: number): void {
  if (size > maxBytes) throw new AppError('payload_too_large', `line ${line} is longer than ${maxBytes} bytes (IMPORT_LINE_MAX_BYTES)`);
}

function decode(bytes: Uint8Array, line: number): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw invalidInput(`line ${line} is not UTF-8`);
  }
}
