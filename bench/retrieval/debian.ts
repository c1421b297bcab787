/**
 * The benchmark's data comes from Debian packages only: `apt-get download` (no install, no root needed)
 * into `.tools/bench-data/debs`, unpacked with `dpkg-deb -x` into `.tools/bench-data/root`. Each package is
 * fetched once; a marker file says it was unpacked whole. `apt-get update` runs only when a download fails
 * for lack of package lists.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../lib/processes.js';

export const BENCH_DATA = join(ROOT, '.tools', 'bench-data');
/** Where the packages' files are unpacked: `root/usr/share/...`. */
export const DEBIAN_ROOT = join(BENCH_DATA, 'root');

function download(pkg: string, debs: string): void {
  const run = () => execFileSync('apt-get', ['download', pkg], { cwd: debs, stdio: ['ignore', 'ignore', 'pipe'] });
  try {
    run();
  } catch {
    console.error(`apt-get download ${pkg} failed; running apt-get update once and trying again`);
    execFileSync('apt-get', ['update'], { stdio: ['ignore', 'ignore', 'inherit'] });
    run();
  }
}

/** Makes sure every package in `packages` is unpacked under DEBIAN_ROOT; returns DEBIAN_ROOT. */
export function ensureDebianPackages(packages: readonly string[]): string {
  const debs = join(BENCH_DATA, 'debs');
  mkdirSync(debs, { recursive: true });
  mkdirSync(DEBIAN_ROOT, { recursive: true });
  for (const pkg of packages) {
    const marker = join(BENCH_DATA, `${pkg}.unpacked`);
    if (existsSync(marker)) continue;
    const isDeb = (f: string) => f.startsWith(`${pkg}_`) && f.endsWith('.deb');
    if (!readdirSync(debs).some(isDeb)) download(pkg, debs);
    const deb = readdirSync(debs).find(isDeb);
    if (!deb) throw new Error(`apt-get download ${pkg} left no .deb in ${debs}`);
    execFileSync('dpkg-deb', ['-x', join(debs, deb), DEBIAN_ROOT]);
    writeFileSync(marker, `${deb}\n`);
    console.error(`bench data: ${deb} unpacked into ${DEBIAN_ROOT}`);
  }
  return DEBIAN_ROOT;
}
