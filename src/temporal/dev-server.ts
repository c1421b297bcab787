import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Connection } from '@temporalio/client';
import { searchAttributeFlags } from './search-attributes.js';

export interface DevServerOptions {
  /** Path of the `temporal` binary (see cli.ts). */
  cli: string;
  /** gRPC frontend port; 0 picks a free one. */
  port: number;
  /** Web UI port; 0 picks a free one. Ignored when `ui` is false. */
  uiPort: number;
  ui: boolean;
  /** SQLite file that keeps workflows across restarts; null keeps them in memory only. */
  dbFilename: string | null;
  logLevel: 'debug' | 'info' | 'warn' | 'error' | 'never';
  namespace: string;
  startupTimeoutMs: number;
  /** Receives the server's own output lines (it logs to stderr). */
  onOutput?: (line: string) => void;
  /** Aborts a start under way: the half-started server is killed, and the start rejects once it has exited. */
  signal?: AbortSignal;
}

/** How the server process ended: its exit code, or the signal that killed it. */
export interface DevServerExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface DevServer {
  /** `127.0.0.1:<port>`, the frontend address for clients and workers. */
  address: string;
  /** The Temporal Web UI, or null when started headless. */
  uiUrl: string | null;
  pid: number;
  /** Resolves when the process has ended, whoever ended it (`stop`, a crash, a kill). */
  exited: Promise<DevServerExit>;
  stop(): Promise<void>;
}

/**
 * Starts `temporal server start-dev` as a child process bound to 127.0.0.1, with Engram's search
 * attributes registered, and resolves once its frontend answers for `namespace`. The child is killed
 * when this process exits, so a crashed service leaves no orphan server holding the ports.
 */
export async function startDevServer(options: DevServerOptions): Promise<DevServer> {
  // Ports picked here can be taken by someone else before the server binds them, and the server picks
  // more of its own (HTTP API, metrics) whatever port it is given, the same way: a server that exits while
  // starting is tried again, on new ports where they were picked here and on the same where they were
  // given. A given port that is taken fails every attempt, and the last one's output says so.
  const attempts = 3;
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(options);
    } catch (error) {
      if (attempt >= attempts || !(error instanceof ExitedWhileStarting) || options.signal?.aborted) throw error;
    }
  }
}

/**
 * The history service hands each new workflow or activity task to matching from its transfer queue,
 * whose reader the server limits to 20 polls a second by default. A job is two or three such tasks, so
 * past a burst of ~10 jobs every task waited up to 50 ms for the reader (an empty owner's consolidation
 * took ~100 ms, 35 ms before the burst ran out). The embedded server is one process on one in-memory or
 * SQLite store: nothing needs that protection here.
 */
const DISPATCH_SETTINGS = ['history.transferProcessorMaxPollRPS=1000'];

/** The server process ended before it answered (as opposed to not answering in time). */
class ExitedWhileStarting extends Error {}

async function startOnce(options: DevServerOptions): Promise<DevServer> {
  const port = options.port === 0 ? await freePort() : options.port;
  const uiPort = options.ui ? (options.uiPort === 0 ? await freePort() : options.uiPort) : null;
  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(port), '--log-level', options.logLevel];
  args.push(...(uiPort === null ? ['--headless'] : ['--ui-port', String(uiPort), '--ui-disable-news-fetch']));
  if (options.dbFilename !== null) args.push('--db-filename', options.dbFilename);
  if (options.namespace !== 'default') args.push('--namespace', options.namespace);
  for (const flag of searchAttributeFlags()) args.push('--search-attribute', flag);
  for (const setting of DISPATCH_SETTINGS) args.push('--dynamic-config-value', setting);

  const child = spawnOwnerOnly(options.cli, args);
  const output = captureOutput(child, options.onOutput);
  const killOnExit = (): void => void child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const exit = new Promise<DevServerExit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const exited = new Promise<string>((resolve) => {
    void exit.then(({ code, signal }) => resolve(`exited with ${code ?? signal}`));
    child.once('error', (error) => resolve(`could not start: ${error.message}`));
  });

  const address = `127.0.0.1:${port}`;
  try {
    await waitUntilServing(address, options.namespace, options.startupTimeoutMs, exited, options.signal);
  } catch (error) {
    child.kill('SIGKILL');
    process.removeListener('exit', killOnExit);
    if (options.signal?.aborted) {
      // The caller is shutting down: it goes on once the process is gone (a child that never spawned has no exit).
      if (child.pid !== undefined) await exit;
      throw error;
    }
    const detail = error instanceof Error ? error.message : String(error);
    const Failure = error instanceof ExitedWhileStarting ? ExitedWhileStarting : Error;
    throw new Failure(`Temporal dev server (${options.cli} ${args.join(' ')}) ${detail}; its output:\n${output()}`, { cause: error });
  }

  return {
    address,
    uiUrl: uiPort === null ? null : `http://127.0.0.1:${uiPort}`,
    pid: child.pid ?? -1,
    exited: exit,
    stop: async () => {
      process.removeListener('exit', killOnExit);
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const stopped = await Promise.race([exited.then(() => true), sleep(10_000).then(() => false)]);
      if (!stopped) {
        child.kill('SIGKILL');
        await exited;
      }
    },
  };
}

async function waitUntilServing(address: string, namespace: string, timeoutMs: number, exited: Promise<string>, signal?: AbortSignal): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError = 'no answer yet';
  while (Date.now() < deadline) {
    signal?.throwIfAborted();
    // A pool of its own: gRPC shares a process's connections to one address among channels of the same
    // options, and one left in reconnect backoff by a client of this process that tried while the server
    // was away (up to two minutes) would fail every attempt here until it tries again.
    const connection = Connection.lazy({ address, connectTimeout: 1000, channelArgs: { 'grpc.use_local_subchannel_pool': 1 } });
    const asked = connection
      .withDeadline(Date.now() + 2000, () => connection.workflowService.describeNamespace({ namespace }))
      .then(() => ({ served: true }), (error: unknown) => ({ error }));
    // Closed once the call is over (by its deadline at the latest): closed under a call whose retry is
    // waiting on a timer, the channel makes that timer throw.
    void asked.then(() => connection.close().catch(() => undefined));
    // A server that exits is noticed at once, not after this attempt's call gives up (~3 s).
    const outcome = await Promise.race([asked, exited.then((reason) => ({ exited: reason }))]);
    if ('served' in outcome) return;
    if ('exited' in outcome) throw new ExitedWhileStarting(outcome.exited);
    lastError = outcome.error instanceof Error ? outcome.error.message : String(outcome.error);
    await sleep(200, undefined, { signal }).catch(() => undefined);
  }
  throw new Error(`did not answer within ${timeoutMs} ms (last error: ${lastError})`);
}

/** Keeps the last 8 KiB of the child's output for error messages and forwards each line. */
function captureOutput(child: ChildProcess, onLine?: (line: string) => void): () => string {
  let tail = '';
  const take = (chunk: Buffer): void => {
    const text = chunk.toString('utf8');
    tail = (tail + text).slice(-8192);
    if (onLine) for (const line of text.split('\n')) if (line.trim()) onLine(line);
  };
  child.stdout?.on('data', take);
  child.stderr?.on('data', take);
  return () => tail;
}

/**
 * The server creates its SQLite files (database, WAL, shared memory) with the umask it inherits, and
 * they hold every workflow's history: it is started with umask 077, so they are 0600. The umask is
 * the process's own, restored as soon as the child is forked (spawn forks synchronously).
 */
function spawnOwnerOnly(cli: string, args: string[]): ChildProcess {
  const umask = process.umask(0o077);
  try {
    return spawn(cli, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  } finally {
    process.umask(umask);
  }
}

/** A port the OS considers free right now (bound to 0 and released). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
