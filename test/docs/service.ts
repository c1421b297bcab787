import { spawn, type ChildProcess } from 'node:child_process';
import { openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parse, stringify } from 'yaml';
import { quietPorts } from '../../bench/lib/ports.js';

export interface NewcomerService {
  /** `127.0.0.1:<port>` of the HTTP service, the Temporal frontend and the Temporal UI. */
  http: string;
  temporal: string;
  temporalUi: string;
  /** The service's stdout and stderr (the build's included). */
  logFile: string;
  stop(): Promise<void>;
}

export interface NewcomerOptions {
  root: string;
  /** The service's DATA_DIR, where a reader finds `data/dev-api-key`. */
  dataDir: string;
  /** The check's own files: the temporal.yaml with free ports, the service's log. */
  filesDir: string;
  embedder: string;
  readyTimeoutMs: number;
}

/**
 * `npm start` as a newcomer runs it (the build step, the built service, an embedded Temporal dev server,
 * a generated dev key), with what a shared machine needs changed: a fresh DATA_DIR, free ports for HTTP and
 * the dev server (a copy of temporal.yaml that differs only in its ports), and the chosen embedder.
 * Resolves once `GET /status` answers 200: the store, Temporal and the embedder are ready.
 */
export async function startAsNewcomer(options: NewcomerOptions): Promise<NewcomerService> {
  const [httpPort, temporalPort, uiPort] = await quietPorts(3);
  const temporalConfig = join(options.filesDir, 'temporal.yaml');
  const settings = parse(readFileSync(join(options.root, 'temporal.yaml'), 'utf8')) as { dev_server: Record<string, unknown> };
  settings.dev_server.port = temporalPort;
  settings.dev_server.ui_port = uiPort;
  writeFileSync(temporalConfig, stringify(settings));
  const logFile = join(options.filesDir, 'service.log');
  const log = openSync(logFile, 'a');
  const child = spawn('npm', ['start'], {
    cwd: options.root,
    // Only what a newcomer's shell has: no API_KEYS_FILE, TEMPORAL_ADDRESS, provider or key settings leak in.
    env: {
      ...pick(process.env, ['PATH', 'HOME', 'TMPDIR', 'LANG', 'TEMPORAL_CLI_PATH']),
      DATA_DIR: options.dataDir,
      PORT: String(httpPort),
      TEMPORAL_CONFIG: temporalConfig,
      EMBEDDER: options.embedder,
    },
    stdio: ['ignore', log, log],
    // Its own process group: npm, the node service and the Temporal dev server stop together.
    detached: true,
  });
  const service: NewcomerService = {
    http: `127.0.0.1:${httpPort}`,
    temporal: `127.0.0.1:${temporalPort}`,
    temporalUi: `127.0.0.1:${uiPort}`,
    logFile,
    stop: () => stopGroup(child),
  };
  try {
    await waitUntilReady(`http://${service.http}/status`, child, options.readyTimeoutMs);
  } catch (error) {
    await service.stop();
    const tail = readFileSync(logFile, 'utf8').trimEnd().split('\n').slice(-30).join('\n');
    throw new Error(`${error instanceof Error ? error.message : String(error)}; the end of its log:\n${tail}`, { cause: error });
  }
  return service;
}

async function waitUntilReady(statusUrl: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer';
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`npm start exited (${child.exitCode ?? child.signalCode}) before the service was ready`);
    try {
      const response = await fetch(statusUrl);
      if (response.status === 200) return;
      last = `${response.status} ${await response.text()}`;
    } catch (error) {
      last = error instanceof Error ? error.message : String(error);
    }
    await sleep(250);
  }
  throw new Error(`the service was not ready within ${timeoutMs} ms (GET /status: ${last})`);
}

/**
 * SIGTERM to the group (the service stops the dev server and closes LMDB), SIGKILL if anything lingers;
 * resolves once no process of the group is left, so the caller may remove DATA_DIR.
 */
async function stopGroup(child: ChildProcess): Promise<void> {
  signalGroup(child, 'SIGTERM');
  const killAt = Date.now() + 20_000;
  // Zombies count as members until reaped: where nothing reaps orphans, give up after the SIGKILL.
  const giveUpAt = killAt + 5_000;
  while (signalGroup(child, 0) && Date.now() < giveUpAt) {
    if (Date.now() > killAt) signalGroup(child, 'SIGKILL');
    await sleep(100);
  }
}

/** Sends a signal to the child's process group; false when the group has no process left. */
function signalGroup(child: ChildProcess, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-child.pid!, signal);
    return true;
  } catch {
    return false;
  }
}

function pick(env: NodeJS.ProcessEnv, names: readonly string[]): Record<string, string> {
  return Object.fromEntries(names.flatMap((name) => (env[name] === undefined ? [] : [[name, env[name]]])));
}
