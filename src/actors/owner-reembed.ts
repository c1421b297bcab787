import { resumeFrom, tokenCappedBatches, type EmbedderOrigin } from '../domain/reembed.js';
import type { Scope } from '../domain/scope.js';
import type { ReembedRecords } from '../store/reembed.js';
import type { Embedder } from '../vector/embedder.js';
import type { DocumentWrites } from './owner-documents.js';

export interface OwnerReembedDeps {
  records: ReembedRecords;
  /** The node's embedder: the one whose vectors replace the foreign ones. */
  embedder: Embedder;
  /** Which passages are the node's own (the owner's vector index leaves the others out by the same rule). */
  origin: EmbedderOrigin;
  /** Reopens the owner's vector index, when it is open, so it holds the rewritten passages. */
  reloadIndex(): Promise<void>;
}

/** Where an owner's re-embedding stands: passages rewritten, and how many there are to rewrite in all. */
export interface ReembedProgress {
  done: number;
  total: number;
}

/**
 * Estimated tokens of one embedding call: the model's own forward-pass cap (src/vector/onnx/model-embedder.ts),
 * so a page reaches the model's thread one pass at a time and a user's query waits behind at most one.
 */
const BATCH_TOKENS = 512;
/**
 * Batches handed to the embedder before the first is back: with one, the model's thread idles during each
 * round trip (measured 0.72 of the raw model's passages/s on full passages); with two it always has the
 * next pass waiting, and a query still waits behind at most two passes.
 */
const IN_FLIGHT = 2;

/**
 * One owner's re-embedding steps, run by the `reembedOwner` workflow's activities. Each page embeds the
 * next foreign passages (outside any transaction, in token-capped batches), then rewrites them and commits
 * the owner's cursor in ONE transaction of the owner's actor, in order with its other writes. So a kill
 * at any point loses at most the page being embedded, the next page starts where the committed ones
 * stopped, and a passage is never counted or rewritten twice.
 */
export class OwnerReembed {
  constructor(
    private readonly scope: Scope,
    private readonly writes: DocumentWrites,
    private readonly deps: OwnerReembedDeps,
  ) {}

  /** Progress as committed: passages rewritten so far, plus the foreign ones still ahead of the cursor. */
  async plan(): Promise<ReembedProgress> {
    const from = this.committed();
    const ahead = await this.deps.records.countForeign(this.scope, from.cursor, this.deps.origin);
    return { done: from.done, total: from.done + ahead };
  }

  /**
   * Rewrites the next page of at most `limit` foreign passages; `onBatch` is told after each embedding
   * call (the activity heartbeats). Returns the committed count and whether no passage is left to visit.
   */
  page(limit: number, onBatch: () => void = () => undefined): Promise<{ done: number; finished: boolean }> {
    return this.writes.hold(this.rewritePage(limit, onBatch));
  }

  /**
   * Ends the job: forgets the cursor, reopens the owner's index (it now holds every passage the node's
   * embedder made) and returns how many foreign passages remain (0 unless something went wrong).
   */
  async finish(): Promise<number> {
    await this.writes.transaction(() => this.deps.records.removeCursor(this.scope));
    await this.deps.reloadIndex();
    return this.deps.records.countForeign(this.scope, -1, this.deps.origin);
  }

  private async rewritePage(limit: number, onBatch: () => void): Promise<{ done: number; finished: boolean }> {
    const { records, origin } = this.deps;
    const from = this.committed();
    const page = records.foreignAfter(this.scope, from.cursor, limit, origin);
    const vectors = await this.embed(page.passages.map((p) => p.text), onBatch);
    return this.writes.transaction(() => {
      const now = this.committed();
      // Another attempt committed a page meanwhile (a retried activity whose first attempt still ran):
      // this page is dropped, and the caller goes on from the cursor that attempt committed.
      if (now.cursor !== from.cursor || now.done !== from.done) return { done: now.done, finished: false };
      const rewritten = records.rewrite(this.scope, page.passages.map((p, i) => ({ label: p.label, vector: vectors[i]! })), origin);
      const done = from.done + rewritten;
      records.putCursor(this.scope, { embedder: origin.id, cursor: page.last, done });
      return { done, finished: page.end };
    });
  }

  private committed() {
    return resumeFrom(this.deps.records.cursor(this.scope), this.deps.origin.id);
  }

  /** Embeds in token-capped batches, IN_FLIGHT at a time, in order. */
  private async embed(texts: string[], onBatch: () => void): Promise<Float32Array[]> {
    const vectors: Float32Array[] = [];
    const inFlight: Array<Promise<Float32Array[]>> = [];
    const next = async () => {
      vectors.push(...(await inFlight.shift()!));
      onBatch();
    };
    for (const { start, end } of tokenCappedBatches(texts, BATCH_TOKENS)) {
      const batch = this.deps.embedder.embed(texts.slice(start, end));
      batch.catch(() => undefined); // awaited below; a failure of an earlier batch must not leave it unhandled
      inFlight.push(batch);
      if (inFlight.length >= IN_FLIGHT) await next();
    }
    while (inFlight.length > 0) await next();
    return vectors;
  }
}
