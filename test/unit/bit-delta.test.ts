import { describe, expect, it } from 'vitest';
import { BitDelta } from '../../src/query/storage/bit-delta.js';
import { applyDelta, decodeContainer, encodeContainer, toArray } from '../../src/query/storage/docset.js';

const container = (lows: number[]) => {
  const words = new Uint32Array(2048);
  for (const low of lows) words[low >>> 5]! |= 1 << (low & 31);
  return encodeContainer(words);
};
const members = (bytes: Uint8Array | null) => (bytes === null ? [] : Array.from(toArray(new Map([[0, decodeContainer(bytes)]]))));

/** A container after a batch's changes: the last change of each number wins, however many changes the batch holds. */
describe('BitDelta', () => {
  it.each([5, 33, 5000])('with %i changes, applies the last change per number to array and bitset containers', (count) => {
    const changes: Array<[number, boolean]> = Array.from({ length: count }, (_, i) => [(i * 7919) % 65_536, i % 3 !== 0]);
    changes.push([2, false], [2, true], [3, true], [3, false]);
    const delta = new BitDelta();
    for (const [low, present] of changes) delta.set(low, present);
    expect([delta.get(2), delta.get(3), delta.get(65_535)]).toEqual([true, false, undefined]);
    // An array container, and a bitset one (more than 4,095 members).
    for (const before of [[1, 2, 3], [1, 2, 3, ...Array.from({ length: 4100 }, (_, i) => 10_000 + i)]]) {
      const model = new Set(before);
      for (const [low, present] of changes) {
        if (present) model.add(low);
        else model.delete(low);
      }
      expect(members(applyDelta(container(before), delta))).toEqual([...model].sort((a, b) => a - b));
    }
  });

  it('empties a container whose every member is cleared (the key is then removed)', () => {
    const delta = new BitDelta();
    for (let i = 0; i < 100; i++) delta.set(i, false);
    expect(applyDelta(container([4, 50, 99]), delta)).toBeNull();
    expect(delta.isEmpty).toBe(false);
    expect(new BitDelta().isEmpty).toBe(true);
  });
});
