import { chmodSync, mkdirSync, statSync, writeFileSync } from 'node:fs';

/**
 * DATA_DIR holds tenant content in clear (documents, captions, facts), keys and Temporal's histories:
 * only the service's own user may read it. Every directory the service makes under it is 0700 and
 * every file 0600.
 */
export const PRIVATE_DIR = 0o700;
export const PRIVATE_FILE = 0o600;

/** Bits that let anyone but the owner in. */
const OTHERS = 0o077;
/** The sticky bit: a directory shared by users (/tmp), never the service's own. */
const STICKY = 0o1000;

/** Creates `dir` (and any missing parent) owner-only; an existing one keeps its mode (see `closeDataDir`). */
export function privateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR });
}

/** Writes a file only its owner may read, whatever mode a file left at `path` had. */
export function writePrivateFile(path: string, data: string): void {
  writeFileSync(path, data, { mode: PRIVATE_FILE });
  chmodSync(path, PRIVATE_FILE);
}

/** Closes an existing file of the service to 0600 (one written by an earlier version); a missing one is fine. */
export function closeFile(path: string): void {
  try {
    if ((statSync(path).mode & OTHERS) !== 0) chmodSync(path, PRIVATE_FILE);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/**
 * DATA_DIR made owner-only at start: `private` when it is (created 0700 when missing); `closed` to 0700 when it existed open
 * to others (made by an earlier version or by hand), which keeps everyone else from every file under
 * it; left `open` when it is not the service's to close (another user's, or a shared sticky directory
 * such as /tmp), which the caller warns about.
 */
export function closeDataDir(dataDir: string): 'private' | 'closed' | 'open' {
  privateDir(dataDir);
  const { mode, uid } = statSync(dataDir);
  if ((mode & OTHERS) === 0) return 'private';
  if ((mode & STICKY) !== 0 || uid !== process.getuid?.()) return 'open';
  chmodSync(dataDir, PRIVATE_DIR);
  return 'closed';
}
