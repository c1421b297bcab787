import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Spawns the built JavaScript of a TypeScript entry point (`npm run build` first: the bench scripts
 * do) with plain node, as `npm start` runs the service, and resolves with the URL it announces on
 * stdout. Servers under comparison all run the same way: under tsx the service serves ~15% fewer requests.
 */
export function spawnServer(
  entry: string,
  env: Record<string, string>,
  urlOf: (line: string) => string | undefined,
  nodeArgs: string[] = [],
  /** A command node runs under (`valgrind` and its options), or none. */
  launcher: string[] = [],
): Promise<{ url: string; child: ChildProcess }> {
  const built = join('dist', entry.replace(/\.ts$/, '.js'));
  if (!existsSync(join(ROOT, built))) throw new Error(`${built} is missing: run npm run build first`);
  const [command = process.execPath, ...args] = [...launcher, process.execPath, ...nodeArgs, built];
  const child = spawn(command, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      const url = urlOf(line);
      if (!url) return;
      resolve({ url, child });
      // From here on stdout is drained unread: the server writes its log as before, but the benchmark's
      // process, which also runs the load generator, no longer splits and JSON-parses a line per request.
      lines.close();
      child.stdout!.resume();
    });
    child.once('exit', (code) => reject(new Error(`${entry} exited with ${code}`)));
  });
}

/** The URL from the service's "engram listening" log line. */
export function engramUrl(line: string): string | undefined {
  if (!line.startsWith('{')) return undefined;
  const entry = JSON.parse(line) as { msg?: string; url?: string };
  return entry.msg === 'engram listening' ? entry.url : undefined;
}

export const plainUrl = (line: string): string | undefined => (line.startsWith('http://') ? line.trim() : undefined);

export interface BenchService {
  url: string;
  child: ChildProcess;
  /** SIGTERM, then resolves once the process has exited (so its DATA_DIR can be removed). */
  stop(): Promise<void>;
}

/**
 * The node options `npm start` gives the service (package.json's `start`: `node <options> dist/src/main.js`),
 * so that every benchmark runs the service as users start it.
 */
export const START_NODE_ARGS: string[] = (() => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } };
  const words = pkg.scripts.start.trim().split(/\s+/);
  if (words[0] !== 'node' || words.at(-1) !== 'dist/src/main.js') throw new Error(`package.json's start script is not "node <options> dist/src/main.js": ${pkg.scripts.start}`);
  return words.slice(1, -1);
})();

/** Spawns the built service (`src/main.ts`) with `npm start`'s node options and `env`; resolves once it listens. */
export function spawnService(env: Record<string, string>, nodeArgs: string[] = [], launcher: string[] = []): Promise<{ url: string; child: ChildProcess }> {
  return spawnServer('src/main.ts', env, engramUrl, [...START_NODE_ARGS, ...nodeArgs], launcher);
}

/**
 * Starts the real service (`src/main.ts`, Temporal off) on `dataDir` with one API key for tenant
 * `bench`, whose keys file is written beside it.
 */
export async function spawnEngram(
  dataDir: string,
  key: string,
  keysDir: string,
  extraEnv: Record<string, string> = {},
  nodeArgs: string[] = [],
  launcher: string[] = [],
): Promise<BenchService> {
  const keysFile = join(keysDir, 'keys.json');
  writeFileSync(keysFile, JSON.stringify({ keys: [{ key, tenant: 'bench' }] }));
  // The hashing embedder unless a benchmark asks for the model: most measure what is not embedding.
  const env = { DATA_DIR: dataDir, API_KEYS_FILE: keysFile, PORT: '0', TEMPORAL_ENABLED: 'false', LOG_LEVEL: 'info', EMBEDDER: 'hash', ...extraEnv };
  const { url, child } = await spawnService(env, nodeArgs, launcher);
  return { url, child, stop: () => stopChild(child) };
}

/** User + system CPU seconds of a process so far, all its threads (Linux /proc). */
export function cpuSeconds(child: ChildProcess): number {
  const stat = readFileSync(`/proc/${child.pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** SIGTERM, then resolves once the process has exited. */
export function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  return exited;
}

/** Throws `missing` unless `command` runs (a tool a benchmark needs that npm does not install: valgrind, perf). */
export function requireTool(command: string, missing: string): void {
  try {
    execFileSync(command, ['--version'], { stdio: 'ignore' });
  } catch {
    throw new Error(missing);
  }
}
