import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * Where each needle occurs in DATA_DIR: every file under it, read as raw bytes (LMDB with its free pages,
 * the key files, vector indexes, Temporal's SQLite...). Needles are strings (searched as UTF-8) or bytes.
 * Returns, per needle that was found, the files (relative to `dataDir`) that hold it.
 */
export function findOnDisk(dataDir: string, needles: Record<string, string | Uint8Array>): Record<string, string[]> {
  const found: Record<string, string[]> = {};
  const wanted = Object.entries(needles).map(([name, needle]) => [name, typeof needle === 'string' ? Buffer.from(needle, 'utf8') : Buffer.from(needle)] as const);
  for (const file of filesUnder(dataDir)) {
    const bytes = readFileSync(file);
    for (const [name, needle] of wanted) {
      if (bytes.includes(needle)) (found[name] ??= []).push(relative(dataDir, file));
    }
  }
  return found;
}

function* filesUnder(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* filesUnder(path);
    else if (entry.isFile()) yield path;
  }
}
