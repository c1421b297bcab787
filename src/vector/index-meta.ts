import { readFileSync, renameSync } from 'node:fs';
import { writePrivateFile } from '../store/private-files.js';

/** What the `.json` beside an owner's `.hnsw` file says of it. */
export interface IndexFileMeta {
  embedderId: string;
  dims: number;
  /** Every label below this was in the index when it was written. */
  covers: number;
  /**
   * Passages left out as foreign (another embedder's) when it was written; absent means none. Re-embedding
   * turns foreign labels below `covers` into this embedder's, and the file lacks them: a file is only
   * reused while the owner has as many foreign passages.
   */
  foreign?: number;
}

/**
 * The meta at `<filePath>.json` when it exists and every field of `expected` is equal in it: embedder,
 * dimension, and the count of foreign passages (absent in a file means none).
 */
export function readIndexMeta(filePath: string, expected: Omit<IndexFileMeta, 'covers'>): IndexFileMeta | null {
  try {
    const meta = JSON.parse(readFileSync(`${filePath}.json`, 'utf8')) as IndexFileMeta;
    const written: Record<string, unknown> = { foreign: 0, ...meta };
    const same = Object.entries({ foreign: 0, ...expected }).every(([key, value]) => written[key] === value);
    return same && Number.isInteger(meta.covers) ? meta : null;
  } catch {
    return null;
  }
}

/** Writes the meta atomically (a crash leaves the old file or the new one, never half of one). */
export function writeIndexMeta(filePath: string, meta: IndexFileMeta): void {
  writePrivateFile(`${filePath}.json.tmp`, JSON.stringify(meta));
  renameSync(`${filePath}.json.tmp`, `${filePath}.json`);
}
