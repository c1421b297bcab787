import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { openApiCheck } from './openapi-check.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface ServiceProcess {
  url: string;
  child: ChildProcess;
  /** Every line the service has written to stdout (its JSON log), to this moment. */
  lines: string[];
  /** Resolves with the exit signal or code. */
  exited: Promise<[number | null, NodeJS.Signals | null]>;
}

export interface SpawnOptions {
  /**
   * What to wait for: `listening` (default), the service's HTTP port, which opens before Temporal is
   * ready; `temporal`, also `GET /status` reporting Temporal ready (for tests of durable jobs).
   */
  until?: 'listening' | 'temporal';
  /** A command the service runs under (say, nsenter into a namespace with a filesystem of its own). */
  prefix?: string[];
}

/** Starts `src/main.ts` in its own process (through tsx) and resolves once it listens (and Temporal is ready, when asked). */
export async function spawnService(env: Record<string, string>, options: SpawnOptions = {}): Promise<ServiceProcess> {
  const command = [...(options.prefix ?? []), process.execPath, '--import', 'tsx', 'src/main.ts'];
  const child = spawn(command[0]!, command.slice(1), {
    cwd: ROOT,
    // The hashing embedder unless a test asks for the model: tests assert behaviour, not the model's speed.
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'info', TEMPORAL_ENABLED: 'false', EMBEDDER: 'hash', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += String(chunk)));
  const output: string[] = [];
  const lines = createInterface({ input: child.stdout! });
  lines.on('line', (line) => output.push(line));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`service did not start in time: ${stderr}`)), 60_000);
    lines.on('line', (line) => {
      if (!line.startsWith('{')) return;
      const entry = JSON.parse(line) as { msg?: string; url?: string };
      if (entry.msg === 'engram listening' && entry.url) {
        clearTimeout(timer);
        resolve(entry.url);
      }
    });
    exited.then(([code]) => reject(new Error(`service exited with ${code}: ${stderr}`)));
  });
  if (options.until === 'temporal') await temporalReady(url, exited);
  return { url, child, lines: output, exited };
}

/** Polls `GET /status` until it reports Temporal ready; fails when the process exits or after 90 s. */
export async function temporalReady(url: string, exited?: Promise<unknown>): Promise<void> {
  let gone = false;
  void exited?.then(() => (gone = true));
  let last: unknown = null;
  for (const deadline = Date.now() + 90_000; Date.now() < deadline && !gone; ) {
    const status = (await (await fetch(`${url}/status`)).json()) as { temporal: { ready: boolean } };
    if (status.temporal.ready) return;
    last = status.temporal;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`Temporal did not become ready (${gone ? 'the service exited' : 'within 90 s'}): ${JSON.stringify(last)}`);
}

/**
 * A request to a spawned service with one bearer key: a JSON body, or NDJSON text (`ndjson`, an import).
 * Answers the status, the text, and the body parsed when it is one JSON value (an export of several lines
 * stays text).
 */
export function keyedCall(key: string) {
  return async (url: string, method: string, path: string, body?: unknown, ndjson?: string): Promise<{ status: number; body: any; text: string }> => {
    const headers = { authorization: `Bearer ${key}`, 'content-type': ndjson === undefined ? 'application/json' : 'application/x-ndjson' };
    const res = await fetch(`${url}${path}`, { method, headers, body: ndjson ?? (body === undefined ? undefined : JSON.stringify(body)) });
    const text = await res.text();
    openApiCheck().check(method, path, res.status, res.headers.get('content-type'), text);
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // Not one JSON value: kept as text.
    }
    return { status: res.status, body: parsed, text };
  };
}
