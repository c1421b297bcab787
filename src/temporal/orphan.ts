import { readFileSync, rmSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { writePrivateFile } from '../store/private-files.js';

/**
 * A service killed with SIGKILL cannot stop its embedded dev server, which then keeps the ports and the
 * database file. The dev server's pid is recorded in DATA_DIR; the next start stops a recorded process
 * that is still a `temporal server start-dev` on the same database before starting its own.
 */
export async function stopOrphanedDevServer(pidFile: string, dbFilename: string): Promise<number | null> {
  const pid = readPid(pidFile);
  if (pid === null || !isOurDevServer(pid, dbFilename)) return null;
  process.kill(pid, 'SIGTERM');
  for (let waited = 0; waited < 10_000 && alive(pid); waited += 100) await sleep(100);
  if (alive(pid)) process.kill(pid, 'SIGKILL');
  rmSync(pidFile, { force: true });
  return pid;
}

export function recordDevServer(pidFile: string, pid: number): void {
  writePrivateFile(pidFile, `${pid}\n`);
}

export function forgetDevServer(pidFile: string): void {
  rmSync(pidFile, { force: true });
}

function readPid(pidFile: string): number | null {
  try {
    const pid = Number(readFileSync(pidFile, 'utf8').trim());
    return Number.isInteger(pid) && pid > 1 ? pid : null;
  } catch {
    return null;
  }
}

function isOurDevServer(pid: number, dbFilename: string): boolean {
  try {
    const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    return args.includes('start-dev') && args.includes(dbFilename);
  } catch {
    return false;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
