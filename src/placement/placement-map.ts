import { placementDigest, placementSlot } from './scope-key.js';

/** A node's id: the suffix of its task queue and its backend's name at the balancer. */
export const NODE_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,62}$/;
const DIGEST = /^[0-9a-f]{64}$/;
const SLOT = /^@(0|[1-9][0-9]{0,5})$/;

/** One scope's own line: its key's digest, its node and, for the comment above it, the key itself. */
export interface ScopeLine {
  digest: string;
  node: string;
  /** The scope's key (`placementKey`), URI-encoded, written as the comment above the line; absent when unknown. */
  label?: string;
}

/**
 * The placement map (docs/scale-out.md): which node hosts each scope. A scope with a line of its own is
 * there; any other is on the node of its slot. The balancer routes with this very file and every node
 * reads it, so they agree on every scope, new ones included.
 */
export class PlacementMap {
  private constructor(
    /** The node of each slot; a scope's slot is `placementSlot(key, slots.length)`. */
    readonly slots: readonly string[],
    private readonly lines: ReadonlyMap<string, ScopeLine>,
  ) {}

  static of(slots: readonly string[], lines: Iterable<ScopeLine>): PlacementMap {
    if (slots.length === 0) throw new Error('a placement map needs at least one slot');
    for (const node of slots) if (!NODE_ID.test(node)) throw new Error(`invalid node id ${JSON.stringify(node)}`);
    const byDigest = new Map<string, ScopeLine>();
    for (const line of lines) {
      if (!DIGEST.test(line.digest)) throw new Error(`invalid scope digest ${JSON.stringify(line.digest)}`);
      if (!NODE_ID.test(line.node)) throw new Error(`invalid node id ${JSON.stringify(line.node)}`);
      byDigest.set(line.digest, line);
    }
    return new PlacementMap([...slots], byDigest);
  }

  /** The node that hosts the scope of this key (`placementKey`). */
  nodeOf(key: string): string {
    return this.lines.get(placementDigest(key))?.node ?? this.slots[placementSlot(key, this.slots.length)]!;
  }

  /** Whether the scope of this key has a line of its own (else its slot places it). */
  pinned(key: string): boolean {
    return this.lines.has(placementDigest(key));
  }

  /** Every node the map names. */
  nodes(): string[] {
    return [...new Set([...this.slots, ...[...this.lines.values()].map((l) => l.node)])].sort();
  }

  scopeLines(): ScopeLine[] {
    return [...this.lines.values()];
  }

  /** This map with the scope of `key` on `node` (a line of its own). */
  withScope(key: string, node: string): PlacementMap {
    const lines = new Map(this.lines);
    lines.set(placementDigest(key), { digest: placementDigest(key), node, label: encodeURIComponent(key) });
    return PlacementMap.of(this.slots, lines.values());
  }

  /** The file's text: slots first, then one line per scope, each under a comment naming it. */
  format(): string {
    const out = [
      '# Engram placement map (docs/scale-out.md): <key> <node>, read by HAProxy and by every node.',
      `# @<n>: the node of slot n (${this.slots.length} slots), for a scope without a line of its own: n = crc32(scope key) mod ${this.slots.length}.`,
      '# <sha256 hex>: the node of one scope, by the SHA-256 of its key; the comment above names the scope (URI-encoded).',
      ...this.slots.map((node, slot) => `@${slot} ${node}`),
    ];
    for (const line of [...this.lines.values()].sort((a, b) => (a.label ?? a.digest).localeCompare(b.label ?? b.digest))) {
      if (line.label !== undefined) out.push(`# ${line.label}`);
      out.push(`${line.digest} ${line.node}`);
    }
    return `${out.join('\n')}\n`;
  }

  /** Reads a map file's text; throws naming the line and the rule that a line breaks. */
  static parse(text: string): PlacementMap {
    const slots: string[] = [];
    const lines: ScopeLine[] = [];
    let label: string | undefined;
    text.split('\n').forEach((raw, index) => {
      const line = raw.trim();
      const where = `placement map line ${index + 1}`;
      if (line === '') return;
      if (line.startsWith('#')) {
        label = line.slice(1).trim() || undefined;
        return;
      }
      const [key, node, extra] = line.split(/\s+/);
      if (extra !== undefined || node === undefined) throw new Error(`${where}: expected "<key> <node>"`);
      if (!NODE_ID.test(node)) throw new Error(`${where}: node id must match ${NODE_ID.source}`);
      const slot = SLOT.exec(key!);
      if (slot) {
        if (Number(slot[1]) !== slots.length) throw new Error(`${where}: slots must be listed in order from @0; expected @${slots.length}`);
        slots.push(node);
      } else if (DIGEST.test(key!)) {
        lines.push({ digest: key!, node, ...(label === undefined ? {} : { label }) });
      } else {
        throw new Error(`${where}: a key is @<slot> or the lowercase hex SHA-256 of a scope key`);
      }
      label = undefined;
    });
    if (slots.length === 0) throw new Error('placement map: no slots (@0 <node> ...)');
    return PlacementMap.of(slots, lines);
  }
}
