/**
 * Pure rules of re-embedding: whose vector a stored passage holds, and how a page of passages is cut into
 * embedding batches. The job itself (src/actors/owner-reembed.ts, workflows/reembed-owner.ts) builds on them.
 */

/** The embedder a node runs, as the passages' records name it. */
export interface EmbedderOrigin {
  id: string;
  /**
   * Whether passages stored without an embedder id are this embedder's: true for the hashing embedder and a
   * provider (such passages predate the id and came from one of them), false for the local model (it came later).
   */
  ownsUnlabeled: boolean;
}

/** What passages whose record names no embedder are counted as, on a node that does not own them. */
export const UNLABELED_ORIGIN = 'an embedder of an earlier version';

/** The embedder that made a stored passage's vector, by the id its record carries (absent on old records). */
export function passageOrigin(recorded: string | undefined, node: EmbedderOrigin): string {
  return recorded ?? (node.ownsUnlabeled ? node.id : UNLABELED_ORIGIN);
}

/** Whether a passage's vector lives in another space than the node's: it must be re-embedded before it is searched. */
export function isForeign(recorded: string | undefined, node: EmbedderOrigin): boolean {
  return passageOrigin(recorded, node) !== node.id;
}

/**
 * Where an owner's re-embedding stands, committed in the same transaction as each page it rewrote: every
 * passage with a label at or below `cursor` was visited, and `done` of them were rewritten.
 */
export interface ReembedCursor {
  /** The embedder the passages are rewritten with; a cursor of another embedder is meaningless (start over). */
  embedder: string;
  cursor: number;
  done: number;
}

/** A new job, or one whose committed cursor was made for another embedder, starts before the first label. */
export function resumeFrom(committed: ReembedCursor | undefined, embedder: string): ReembedCursor {
  return committed?.embedder === embedder ? committed : { embedder, cursor: -1, done: 0 };
}

/** The local model's input limit: a passage never costs more tokens than this, however long. */
export const MODEL_MAX_TOKENS = 256;

/**
 * A cheap upper estimate of a text's tokens for an embedder that cannot count them (the hashing one, a
 * provider): English WordPiece runs ~4 characters a token; 3 leaves room for numbers and rare words, +2
 * for the [CLS]/[SEP] pair; capped at what the model reads.
 */
export function estimateTokens(text: string): number {
  return Math.min(MODEL_MAX_TOKENS, Math.ceil(text.length / 3) + 2);
}

/**
 * Groups texts (by their token counts) into embedding calls whose padded size (texts x longest) stays
 * within `maxTokens`; every group holds at least one text. Texts of like length share a group (they are
 * taken shortest first), so little of a pass is padding. Sent a few at a time, the groups keep at most a
 * few passes of a job in the embedder's queue, so a user's query never waits behind a whole page.
 * Returns groups of indexes into `tokens`.
 */
export function tokenCappedBatches(tokens: readonly number[], maxTokens: number): number[][] {
  const order = tokens.map((_, i) => i).sort((a, b) => tokens[a]! - tokens[b]! || a - b);
  const batches: number[][] = [];
  let batch: number[] = [];
  for (const i of order) {
    // Ascending order: the text joining is the longest of its group.
    if (batch.length > 0 && tokens[i]! * (batch.length + 1) > maxTokens) {
      batches.push(batch);
      batch = [];
    }
    batch.push(i);
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}
