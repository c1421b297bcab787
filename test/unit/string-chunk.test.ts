import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CHUNK_SIZE } from '../../src/query/storage/layout.js';
import { decodeStringChunk, encodeStringChunk, StringChunk } from '../../src/query/storage/string-chunk.js';

const values = (chunk: StringChunk) => Array.from({ length: CHUNK_SIZE }, (_, at) => chunk.get(at));

describe('dictionary-coded string column chunks', () => {
  it('round-trip any values, missing ones and non-ASCII text included, after any sequence of writes', () => {
    const value = fc.option(fc.oneof(fc.constantFrom('open', 'closed', '', 'é', '日本', '😀x'), fc.string({ unit: 'grapheme', maxLength: 12 })), { nil: null });
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: CHUNK_SIZE - 1 }), value), { maxLength: 300 }), (writes) => {
        const chunk = StringChunk.empty();
        const expected = new Array<string | null>(CHUNK_SIZE).fill(null);
        for (const [at, v] of writes) {
          chunk.set(at, v);
          expected[at] = v;
        }
        expect(values(chunk)).toEqual(expected);
        const decoded = decodeStringChunk(encodeStringChunk(chunk));
        expect(values(decoded)).toEqual(expected);
        // The stored dictionary holds each value in use once, and nothing else.
        expect([...decoded.dict].sort()).toEqual([...new Set(expected.filter((v) => v !== null))].sort());
      }),
      { numRuns: 300 },
    );
  });

  it('keeps its first and last documents apart from the neighbouring chunks (no value leaks over a boundary)', () => {
    const chunk = StringChunk.empty();
    chunk.set(0, 'first');
    chunk.set(CHUNK_SIZE - 1, 'last');
    const decoded = decodeStringChunk(encodeStringChunk(chunk));
    expect([decoded.get(0), decoded.get(1), decoded.get(CHUNK_SIZE - 2), decoded.get(CHUNK_SIZE - 1)]).toEqual(['first', null, null, 'last']);
  });

  it('survives more distinct writes than its 16-bit codes can number, by dropping values no document holds', () => {
    const chunk = StringChunk.empty();
    for (let i = 0; i < 70_000; i++) chunk.set(i % 4, `v${i}`);
    expect([chunk.get(0), chunk.get(1), chunk.get(2), chunk.get(3), chunk.get(4)]).toEqual(['v69996', 'v69997', 'v69998', 'v69999', null]);
    expect(values(decodeStringChunk(encodeStringChunk(chunk))).slice(0, 5)).toEqual(['v69996', 'v69997', 'v69998', 'v69999', null]);
  });

  it('reads from an unaligned buffer, as LMDB may hand one over', () => {
    const chunk = StringChunk.empty();
    chunk.set(5, 'x');
    const bytes = encodeStringChunk(chunk);
    const shifted = Buffer.alloc(bytes.length + 1);
    bytes.copy(shifted, 1);
    expect(decodeStringChunk(shifted.subarray(1)).get(5)).toBe('x');
  });
});
