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
  const text = (tokens: number) => 'x'.repeat((tokens - 2) * 3);

  it('estimates tokens from characters, capped at what the model reads', () => {
    expect(estimateTokens('')).toBe(2);
    expect(estimateTokens(text(100))).toBe(100);
    expect(estimateTokens('y'.repeat(10_000))).toBe(256);
  });

  it('keeps texts x longest within the cap, in order, and never leaves a text out', () => {
    const texts = [text(100), text(100), text(100), text(256), text(10), text(10)];
    expect(tokenCappedBatches(texts, 512)).toEqual([
      { start: 0, end: 3 }, // 3 x 100 = 300; a 256-token fourth would pad them all to 4 x 256
      { start: 3, end: 5 }, // 256 + 10 padded to 2 x 256 = 512
      { start: 5, end: 6 },
    ]);
    expect(tokenCappedBatches([text(256)], 100)).toEqual([{ start: 0, end: 1 }]);
    expect(tokenCappedBatches([], 512)).toEqual([]);
  });
});
