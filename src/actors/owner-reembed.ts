import { estimateTokens, MODEL_MAX_TOKENS, resumeFrom, tokenCappedBatches, type EmbedderOrigin } from '../domain/reembed.js';
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
  /** Tokens of one embedding call (BATCH_TOKENS unless a benchmark compares another). */
  batchTokens?: number;
}

/** Where an owner's re-embedding stands: passages rewritten, and how many there are to rewrite in all. */
export interface ReembedProgress {
  done: number;
  total: number;
}

/**
 * Tokens (padded) of one embedding call: one forward pass of the model. The model's thread serves queries
 * and writes in arrival order, so a query waits behind the calls already sent: with 256 (half the model's
 * own pass cap) it waited p50 175-207 ms, p99 283-307 ms, against 245-315 and 421-531 ms with 512, for
 * the same passages/s (bench/reembed.ts; docs/search.md).
 */
const BATCH_TOKENS = 256;
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

  /**
   * Embeds in token-capped batches, IN_FLIGHT at a time; vectors come back in the texts' order. Tokens are
   * counted by the embedder's own tokenizer when it has one (the model), else estimated. An embedder with
   * no window (the hashing one, a provider) shares no thread with queries: it gets the page in one call.
   */
  private async embed(texts: string[], onBatch: () => void): Promise<Float32Array[]> {
    const { embedder } = this.deps;
    const cap = embedder.maxTokens ?? MODEL_MAX_TOKENS;
    const callTokens = embedder.maxTokens === undefined ? Infinity : (this.deps.batchTokens ?? BATCH_TOKENS);
    const counted = embedder.countTokens && texts.length ? await embedder.countTokens(texts) : texts.map(estimateTokens);
    const vectors: Float32Array[] = new Array<Float32Array>(texts.length);
    const inFlight: Array<{ indexes: number[]; embedded: Promise<Float32Array[]> }> = [];
    const next = async () => {
      const { indexes, embedded } = inFlight.shift()!;
      (await embedded).forEach((vector, k) => (vectors[indexes[k]!] = vector));
      onBatch();
    };
    for (const indexes of tokenCappedBatches(counted.map((n) => Math.min(n, cap)), callTokens)) {
      const batch = indexes.map((i) => texts[i]!);
      // Behind live queries and writes on the model's thread, which this job shares with them.
      const embedded = embedder.embedInBackground ? embedder.embedInBackground(batch) : embedder.embed(batch);
      embedded.catch(() => undefined); // awaited below; a failure of an earlier batch must not leave it unhandled
      inFlight.push({ indexes, embedded });
      if (inFlight.length >= IN_FLIGHT) await next();
    }
    while (inFlight.length > 0) await next();
    return vectors;
  }
}
