import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.js';
import { ndjsonLines } from '../../src/http/ndjson-lines.js';

async function* chunks(...parts: Array<string | Uint8Array>): AsyncGenerator<Uint8Array> {
  for (const part of parts) yield typeof part === 'string' ? Buffer.from(part, 'utf8') : part;
}

async function collect(source: AsyncIterable<Uint8Array>, max = 1024) {
  const out: Array<[number, string]> = [];
  for await (const { number, text } of ndjsonLines(source, max)) out.push([number, text]);
  return out;
}

describe('ndjsonLines', () => {
  it('splits lines across chunk boundaries, drops a \\r before \\n, keeps a last line without \\n, and numbers blank lines', async () => {
    expect(await collect(chunks('{"a":', '1}\r\n\n{"b"', ':2}\n{"c":3}'))).toEqual([
      [1, '{"a":1}'],
      [3, '{"b":2}'],
      [4, '{"c":3}'],
    ]);
  });

  it('keeps a multi-byte character cut between two chunks whole', async () => {
    const bytes = Buffer.from('"é"\n', 'utf8');
    expect(await collect(chunks(bytes.subarray(0, 2), bytes.subarray(2)))).toEqual([[1, '"é"']]);
  });

  it('refuses a line longer than the limit with 413 naming it, before the line has arrived whole', async () => {
    async function* endless(): AsyncGenerator<Uint8Array> {
      yield Buffer.from('{}\n');
      for (;;) yield Buffer.alloc(64, 0x61);
    }
    const failure = await collect(endless(), 100).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AppError);
    expect(failure).toMatchObject({ code: 'payload_too_large', message: expect.stringContaining('line 2 is longer than 100 bytes') });
  });

  it('refuses a line that is not UTF-8 with 400 naming it', async () => {
    await expect(collect(chunks('{}\n', Buffer.from([0x22, 0xff, 0x22, 0x0a])))).rejects.toMatchObject({ code: 'invalid_input', message: 'line 2 is not UTF-8' });
  });
});
