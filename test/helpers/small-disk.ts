import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where the service runs from (test/helpers/process.ts). */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** A small filesystem of its own that a test can fill, for what a full disk does to the service. */
export interface SmallDisk {
  /** Where the service finds the filesystem. */
  dir: string;
  /** What to run a process under so that it sees the filesystem at `dir` (nothing when it is mounted for everyone). */
  prefix: string[];
  /** How it was made: `mount` (root) or `unshare` (an unprivileged user and mount namespace). */
  how: 'mount' | 'unshare';
  /** Fills the filesystem to the last byte. */
  fill(): void;
  /** Gives back what `fill` took. */
  free(): void;
  /** Unmounts it (or ends its namespace) and removes what is left. */
  close(): Promise<void>;
}

/**
 * A tmpfs of `megabytes`: mounted at a temporary directory where this process may mount (root), else in
 * an unprivileged user and mount namespace kept alive by a holder process, which processes join with
 * `prefix` (nsenter) and this one reaches through `/proc/<holder>/root`. Neither: the reason, to skip with.
 */
export async function smallDisk(megabytes: number): Promise<SmallDisk | { skip: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'engram-small-disk-'));
  const options = `size=${megabytes}m,mode=0700`;
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', dir], { stdio: 'pipe' });
    return disk(dir, dir, [], 'mount', async () => {
      execFileSync('umount', [dir], { stdio: 'pipe' });
      rmSync(dir, { recursive: true, force: true });
    });
  } catch (mountError) {
    const holder = spawn('unshare', ['--user', '--map-root-user', '--mount', 'sh', '-c', `mount -t tmpfs -o ${options} tmpfs "$0" && echo mounted && exec sleep 86400`, dir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const mounted = await holderMounted(holder);
    if (mounted !== true) {
      rmSync(dir, { recursive: true, force: true });
      return { skip: `no small filesystem to fill here: mount -t tmpfs failed (${firstLine(mountError)}) and so did unshare --user --mount (${mounted})` };
    }
    // Joining a mount namespace moves to its root directory: the service's own is given back with --wd.
    const prefix = ['nsenter', '--target', String(holder.pid), '--user', '--mount', '--preserve-credentials', `--wd=${ROOT}`, '--'];
    return disk(dir, `/proc/${holder.pid}/root${dir}`, prefix, 'unshare', async () => {
      holder.kill('SIGKILL');
      await once(holder, 'exit').catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    });
  }
}

function disk(dir: string, reach: string, prefix: string[], how: SmallDisk['how'], close: () => Promise<void>): SmallDisk {
  const filler = join(reach, 'filler');
  return { dir, prefix, how, fill: () => fillUp(filler), free: () => rmSync(filler, { force: true }), close };
}

/** Writes zeros until the filesystem refuses, in ever smaller pieces down to a page. */
function fillUp(path: string): void {
  const fd = openSync(path, 'a');
  try {
    for (let size = 1 << 20; size >= 4096; size >>= 1) {
      const chunk = Buffer.alloc(size);
      for (;;) {
        try {
          writeSync(fd, chunk);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
          break;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
}

/** True once the holder says its tmpfs is mounted; why not, when it exits first. */
async function holderMounted(holder: ChildProcess): Promise<true | string> {
  let output = '';
  holder.stderr!.on('data', (chunk) => (output += String(chunk)));
  return new Promise((resolve) => {
    holder.stdout!.on('data', (chunk) => String(chunk).includes('mounted') && resolve(true));
    holder.once('error', (error) => resolve(error.message));
    holder.once('exit', (code) => resolve(`exited with ${code}: ${output.trim()}`));
  });
}

function firstLine(error: unknown): string {
  const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
  return (stderr || (error instanceof Error ? error.message : String(error))).split('\n')[0]!;
}
