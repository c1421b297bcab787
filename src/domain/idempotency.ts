/**
 * `Idempotency-Key` (DECISIONS.md, Writes that may be retried): the rules that need no I/O. The keeping
 * is src/store/idempotency.ts, the HTTP side src/http/idempotency.ts.
 */

/** How long the first response to a key is kept. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export const IDEMPOTENCY_KEY_MAX = 255;

/** 1 to 255 printable ASCII characters (space to `~`): what a header carries unchanged through proxies. */
export const IDEMPOTENCY_KEY_PATTERN = new RegExp(`^[\\x20-\\x7e]{1,${IDEMPOTENCY_KEY_MAX}}$`);

export const IDEMPOTENCY_KEY_RULE = `must be 1 to ${IDEMPOTENCY_KEY_MAX} printable ASCII characters (space to ~)`;

/** What a request carrying a key meets: a first use, the same request again, or another request under that key. */
export type Repeat = { kind: 'first' } | { kind: 'replay' } | { kind: 'conflict'; message: string };

/**
 * The answer to a key: `running` when a request with it is being answered now (never run a write twice:
 * refused, not waited for), else by the response kept for it, if any, compared by fingerprint.
 */
export function judgeRepeat(running: boolean, keptFingerprint: string | undefined, fingerprint: string): Repeat {
  if (running) {
    return { kind: 'conflict', message: 'a request with this Idempotency-Key is still in progress; retry once it has finished' };
  }
  if (keptFingerprint === undefined) return { kind: 'first' };
  if (keptFingerprint === fingerprint) return { kind: 'replay' };
  return {
    kind: 'conflict',
    message: 'this Idempotency-Key was used for another request (method, path, query or body differ); a new request needs a new key',
  };
}
