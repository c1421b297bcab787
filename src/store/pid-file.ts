import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { writePrivateFile } from './private-files.js';

/**
 * `DATA_DIR/engram.pid`: the process id of the service running on the directory, written at start and
 * removed at close, so offline tools (`npm run compact`) can refuse to run beside it. A file left by a
 * killed service names a dead process and is ignored.
 */
const pidPath = (dataDir: string) => join(dataDir, 'engram.pid');

/** Records this process as the directory's service; the returned function removes the mark (if still ours). */
export function claimPidFile(dataDir: string): () => void {
  writePrivateFile(pidPath(dataDir), `${process.pid}\n`);
  return () => {
    if (readPid(dataDir) === process.pid) rmSync(pidPath(dataDir), { force: true });
  };
}

/** The pid of a live service on the directory, or null when none runs (no file, or a dead process). */
export function runningService(dataDir: string): number | null {
  const pid = readPid(dataDir);
  if (pid === null) return null;
  try {
    process.kill(pid, 0);
    return pid;
  } catch (error) {
    // EPERM: the process exists but is another user's; it still holds the directory.
    return (error as NodeJS.ErrnoException).code === 'EPERM' ? pid : null;
  }
}

function readPid(dataDir: string): number | null {
  let text: string;
  try {
    text = readFileSync(pidPath(dataDir), 'utf8');
  } catch {
    return null;
  }
  const pid = Number(text.trim());
  return Number.isInteger(pid) && pid > 0 ? pid : null;
}
