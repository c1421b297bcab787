import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Spawns a TypeScript entry point through tsx and resolves with the URL it announces on stdout. */
export function spawnServer(entry: string, env: Record<string, string>, urlOf: (line: string) => string | undefined): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', entry], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      const url = urlOf(line);
      if (url) resolve({ url, child });
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
