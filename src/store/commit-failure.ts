import { unavailable, type AppError } from '../errors.js';

/** Seconds a client is told to wait before retrying a write the disk refused (an operator has to free space). */
export const DISK_FULL_RETRY_AFTER_S = 30;

/** Codes that mean there is no room: ENOSPC, EDQUOT, EFBIG, and LMDB's MDB_MAP_FULL. */
const NO_ROOM = new Set([28, 122, 27, -30792]);

/** How long the real cause of a failed commit is waited for; lmdb-js rejects it in the same callback, or very soon after. */
const CAUSE_WAIT_MS = 1000;

/**
 * What lmdb-js rejects every write of a failed commit with: `Error('Commit failed')`, whose real cause
 * (ENOSPC, EIO...) is the rejection of a second promise, `commitError`, shared by the whole commit.
 */
interface CommitFailure extends Error {
  commitError: Promise<never>;
}

function isCommitFailure(error: unknown): error is CommitFailure {
  return error instanceof Error && typeof (error as Partial<CommitFailure>).commitError?.then === 'function';
}

/**
 * Marks the cause of a failed commit as handled. lmdb-js gives it to no one else: left alone, its
 * rejection is unhandled and Node exits, taking every tenant down for one refused write. Call it in the
 * same task as the failure (a handler attached directly to the write's promise).
 */
export function quietCommitFailure(error: unknown): void {
  if (isCommitFailure(error)) error.commitError.catch(() => undefined);
}

/**
 * A write's promise whose failed commit rejects with 503 `unavailable` (and `Retry-After`): the writes of
 * that commit were not stored and nothing else changed, so a retry once the disk has room succeeds.
 * Other errors (a refusal thrown inside a transaction) pass unchanged.
 */
export function committed<T>(write: Promise<T>): Promise<T> {
  return write.catch(async (error: unknown) => {
    if (!isCommitFailure(error)) throw error;
    quietCommitFailure(error);
    throw storageUnavailable((await causeOf(error)) ?? error);
  });
}

/** The error a commit failed with, when lmdb-js reports it in time. */
async function causeOf(failure: CommitFailure): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), CAUSE_WAIT_MS).unref()));
  try {
    return await Promise.race([failure.commitError.catch((cause: unknown) => cause), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** 503 for a write the disk did not take; the message says why without naming paths or internals. */
function storageUnavailable(cause: unknown): AppError {
  const code = (cause as { code?: unknown } | undefined)?.code;
  const full = typeof code === 'number' && NO_ROOM.has(code);
  const message = full
    ? 'the server is out of disk space, so this write was not stored; retry once space has been freed'
    : 'the server could not write to its disk, so this write was not stored; retry later';
  return unavailable(message, cause, DISK_FULL_RETRY_AFTER_S);
}
