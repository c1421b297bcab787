import { describe, expect, it } from 'vitest';
import { nextBatch } from '../../src/vector/onnx/batches.js';

describe('nextBatch (token-capped forward passes)', () => {
  it('always takes the oldest text, adds the closest lengths while texts x longest stays within the cap', () => {
    expect(nextBatch([], 512)).toEqual([]);
    expect(nextBatch([300], 512)).toEqual([0]);
    expect(nextBatch([10, 200, 12, 11, 250], 512)).toEqual([0, 3, 2]);
    expect(nextBatch([10, 100, 12], 512)).toEqual([0, 2, 1]);
    expect(nextBatch([256, 256, 256], 512)).toEqual([0, 1]);
    expect(nextBatch(Array.from({ length: 100 }, () => 8), 512)).toHaveLength(64);
  });
});
