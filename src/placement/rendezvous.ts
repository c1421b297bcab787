import { createHash } from 'node:crypto';

/**
 * Which node each slot goes to when a map is generated: rendezvous (highest-random-weight) hashing, a
 * consistent hash, so adding a node moves only the slots it wins (about 1/n of them) and nothing else.
 * It decides where *new* scopes go; a scope that exists stays where its line or its slot put it.
 */
export function rendezvousSlots(nodes: readonly string[], slots: number): string[] {
  if (nodes.length === 0) throw new Error('at least one node is needed');
  return Array.from({ length: slots }, (_, slot) => {
    let best = nodes[0]!;
    let bestWeight = -1n;
    for (const node of nodes) {
      const weight = createHash('sha256').update(`${node}#${slot}`).digest().readBigUInt64BE(0);
      if (weight > bestWeight) [best, bestWeight] = [node, weight];
    }
    return best;
  });
}
