import { isForeign, type EmbedderOrigin, type ReembedCursor } from '../domain/reembed.js';
import type { Scope } from '../domain/scope.js';
import type { PassageRecord } from './documents.js';
import { KEY_MAX, scopeKey, type Key, type Store } from './lmdb.js';

/** A foreign passage to re-embed: its label and text (the vector it has is of no use). */
export interface ForeignPassage {
  label: number;
  text: string;
}

/**
 * The records re-embedding reads and rewrites, beside the documents' layout (src/store/documents.ts):
 * the owner's passages `psg/<label>`, rewritten in place (same label, same text, new vector and embedder
 * id), and `reembed` → ReembedCursor, the owner's committed progress, written in the same transaction as
 * the page it describes. Writers run inside `Store.transaction`, in the owner's actor.
 */
export class ReembedRecords {
  constructor(private readonly store: Store) {}

  /** The owner's committed progress, if a re-embedding has committed a page and not finished. */
  cursor(scope: Scope): ReembedCursor | undefined {
    return this.store.records.get([...scopeKey(scope), 'reembed']) as ReembedCursor | undefined;
  }

  /** Inside a transaction. */
  putCursor(scope: Scope, cursor: ReembedCursor): void {
    this.store.records.put([...scopeKey(scope), 'reembed'], cursor);
  }

  /** Inside a transaction. */
  removeCursor(scope: Scope): void {
    this.store.records.remove([...scopeKey(scope), 'reembed']);
  }

  /**
   * Up to `limit` foreign passages after label `after`, reading at most `scanMax` passages from one
   * snapshot (an owner whose later passages are all the node's own is crossed in bounded steps). `last` is
   * the last label read (`after` when none), `end` whether no passage follows it.
   */
  foreignAfter(scope: Scope, after: number, limit: number, node: EmbedderOrigin, scanMax = SCAN_MAX): { passages: ForeignPassage[]; last: number; end: boolean } {
    const passages: ForeignPassage[] = [];
    let last = after;
    let read = 0;
    for (const { key, value } of this.store.content.range({ start: [...scopeKey(scope), 'psg', after + 1], end: psgEnd(scope), limit: scanMax })) {
      const record = value as PassageRecord;
      last = key.at(-1) as number;
      read++;
      if (isForeign(record.embedder, node)) passages.push({ label: last, text: record.text });
      if (passages.length >= limit) return { passages, last, end: !this.hasPassageAfter(scope, last) };
    }
    return { passages, last, end: read < scanMax || !this.hasPassageAfter(scope, last) };
  }

  /**
   * How many foreign passages follow label `after` (at most `stopAt`): read in chunks, each from a fresh
   * snapshot, yielding to the event loop between them, so counting a large owner stalls no request.
   */
  async countForeign(scope: Scope, after: number, node: EmbedderOrigin, stopAt = Infinity): Promise<number> {
    let count = 0;
    for (let at = after; ; ) {
      const page = this.foreignAfter(scope, at, Infinity, node);
      count += page.passages.length;
      if (page.end || count >= stopAt) return Math.min(count, stopAt);
      at = page.last;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  /**
   * Inside a transaction: gives each passage still foreign its new vector and the embedder's id, in
   * place. A passage hard-deleted meanwhile, or already rewritten, is left alone. Returns how many changed.
   */
  rewrite(scope: Scope, vectors: ReadonlyArray<{ label: number; vector: Float32Array }>, node: EmbedderOrigin): number {
    let changed = 0;
    for (const { label, vector } of vectors) {
      const key = [...scopeKey(scope), 'psg', label];
      const record = this.store.content.get<PassageRecord>(key);
      if (!record || !isForeign(record.embedder, node)) continue;
      const bytes = new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength);
      this.store.content.put(key, { ...record, vector: bytes, embedder: node.id } satisfies PassageRecord);
      changed++;
    }
    return changed;
  }

  /** Owners that stored a passage, in key order, after `after` (from the first when null); one jump per owner. */
  *owners(after: Scope | null): Generator<Scope> {
    let start: Key | undefined = after ? [...scopeKey(after), KEY_MAX] : undefined;
    for (;;) {
      const [key] = this.store.records.getKeys({ ...(start ? { start } : {}), limit: 1 }) as Iterable<Key>;
      if (!key) return;
      const [tenant, partition, entityId] = key;
      if (typeof tenant !== 'string' || typeof partition !== 'string' || typeof entityId !== 'string') return;
      const scope: Scope = { tenant, partition: partition === '' ? null : partition, entityId };
      if (((this.store.records.get([...scopeKey(scope), 'vseq']) as number | undefined) ?? 0) > 0) yield scope;
      start = [tenant, partition, entityId, KEY_MAX];
    }
  }

  private hasPassageAfter(scope: Scope, label: number): boolean {
    for (const _ of this.store.records.getKeys({ start: [...scopeKey(scope), 'psg', label + 1], end: psgEnd(scope), limit: 1 })) return true;
    return false;
  }
}

/** Passages read per snapshot: ~4,000 records of 384 dimensions are ~6 MB (as the documents' scans). */
const SCAN_MAX = 4000;

const psgEnd = (scope: Scope): Key => [...scopeKey(scope), 'psg', KEY_MAX];
