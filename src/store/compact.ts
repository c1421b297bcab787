import { chmodSync, closeSync, existsSync, fsyncSync, openSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { open } from 'lmdb';
import { runningService } from './pid-file.js';
import { PRIVATE_FILE } from './private-files.js';

/** Why the store was not compacted: a service runs on it, or there is no store. */
export class CompactRefused extends Error {}

/**
 * Rewrites `DATA_DIR/engram.mdb` without its free pages (LMDB's copy with MDB_CP_COMPACT): what a hard
 * delete, a forget or a field index left in freed pages and in the gaps of pages is not copied. The copy
 * goes to a temporary file in DATA_DIR, is fsynced, then renamed over the store (atomic: a crash leaves
 * the old store or the new one, never half of one), mode 0600. Offline only: it refuses while a service
 * runs on DATA_DIR (`engram.pid`), whose writes after the copy the rename would lose.
 */
export async function compactStore(dataDir: string): Promise<{ before: number; after: number }> {
  const pid = runningService(dataDir);
  if (pid !== null) throw new CompactRefused(`a service (pid ${pid}) is running on ${dataDir}: stop it first, compaction runs offline`);
  const path = join(dataDir, 'engram.mdb');
  if (!existsSync(path)) throw new CompactRefused(`${dataDir} holds no store (engram.mdb)`);
  const before = statSync(path).size;
  const tmp = join(dataDir, `engram.mdb.compact-${process.pid}`);
  rmSync(tmp, { force: true });
  const env = open({ path, maxDbs: 64, compression: false });
  try {
    await env.backup(tmp, true);
  } catch (error) {
    rmSync(tmp, { force: true });
    throw error;
  } finally {
    await env.close();
  }
  chmodSync(tmp, PRIVATE_FILE);
  syncPath(tmp, 'r+');
  renameSync(tmp, path);
  syncPath(dataDir, 'r');
  return { before, after: statSync(path).size };
}

function syncPath(path: string, flags: string): void {
  const fd = openSync(path, flags);
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
