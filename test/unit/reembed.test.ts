import { describe, expect, it } from 'vitest';
import { estimateTokens, isForeign, passageOrigin, resumeFrom, tokenCappedBatches, UNLABELED_ORIGIN } from '../../src/domain/reembed.js';

describe('passage origin', () => {
  const hashNode = { id: 'local-hash-v1-384', ownsUnlabeled: true };
  const modelNode = { id: 'all-minilm-l6-v2-384', ownsUnlabeled: false };

  it.each([
    { recorded: 'local-hash-v1-384', node: hashNode, origin: 'local-hash-v1-384', foreign: false },
    { recorded: 'all-minilm-l6-v2-384', node: hashNode, origin: 'all-minilm-l6-v2-384', foreign: true },
    { recorded: undefined, node: hashNode, origin: 'local-hash-v1-384', foreign: false },
    { recorded: undefined, node: modelNode, origin: UNLABELED_ORIGIN, foreign: true },
    { recorded: 'local-hash-v1-384', node: modelNode, origin: 'local-hash-v1-384', foreign: true },
    { recorded: 'all-minilm-l6-v2-384', node: modelNode, origin: 'all-minilm-l6-v2-384', foreign: false },
  ])('a passage recorded as $recorded on a node running $node.id is foreign: $foreign', ({ recorded, node, origin, foreign }) => {
    expect(passageOrigin(recorded, node)).toBe(origin);
    expect(isForeign(recorded, node)).toBe(foreign);
  });
});

describe('resumeFrom', () => {
  it('continues a cursor of the same embedder and starts over for another or none', () => {
    const committed = { embedder: 'm', cursor: 41, done: 30 };
    expect(resumeFrom(committed, 'm')).toBe(committed);
    expect(resumeFrom(committed, 'other')).toEqual({ embedder: 'other', cursor: -1, done: 0 });
    expect(resumeFrom(undefined, 'm')).toEqual({ embedder: 'm', cursor: -1, done: 0 });
  });
});

describe('token-capped batches', () => {
  it('estimates tokens from characters, capped at what the model reads', () => {
    expect(estimateTokens('')).toBe(2);
    expect(estimateTokens('x'.repeat(294))).toBe(100);
    expect(estimateTokens('y'.repeat(10_000))).toBe(256);
  });

  it('groups texts of like length while texts x longest stays within the cap, and leaves none out', () => {
    //                  0    1   2    3   4    5
    const tokens = [100, 10, 256, 100, 10, 100];
    expect(tokenCappedBatches(tokens, 512)).toEqual([
      [1, 4, 0, 3, 5], // shortest first: 5 x 100 = 500
      [2], // 256 alone: a sixth text would pad the first group to 6 x 256
    ]);
    expect(tokenCappedBatches([256], 100)).toEqual([[0]]);
    expect(tokenCappedBatches([], 512)).toEqual([]);
    expect(tokenCappedBatches([40, 40, 40], 512).flat().sort()).toEqual([0, 1, 2]);
  });
});
