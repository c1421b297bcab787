import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `src/cli/keys.ts` (what `npm run keys --` runs, built) in its own process, through tsx. */
export function runKeysCli(args: string[]): Promise<CliRun> {
  return runCli('src/cli/keys.ts', args);
}

/** Runs an operator command of src/cli/ (what its `npm run` script runs, built) in its own process, through tsx. */
export async function runCli(script: string, args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ['--import', 'tsx', script, ...args], { cwd: ROOT, env: { ...process.env, ...env } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    if (typeof failed.code !== 'number') throw error;
    return { code: failed.code, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

/** The key the CLI printed, and the `API_KEYS_FILE` entry it printed with it. */
export function mintedKey(run: CliRun): { key: string; entry: Record<string, unknown> } {
  const key = /\bsk_live_[A-Za-z0-9_-]+/.exec(run.stdout)?.[0];
  const entry = run.stdout.split('\n').map((line) => line.trim()).find((line) => line.startsWith('{"key_sha256"'));
  if (key === undefined || entry === undefined) throw new Error(`the keys CLI printed no key or no entry: ${run.stdout}${run.stderr}`);
  return { key, entry: JSON.parse(entry) as Record<string, unknown> };
}

/** Mints a key with the CLI, as an operator would. */
export async function mintKeyWithCli(args: string[]): Promise<{ key: string; entry: Record<string, unknown> }> {
  return mintedKey(await runKeysCli(['new', ...args]));
}
