import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { quietPorts } from '../../bench/lib/ports.js';
import { spawnService, type ServiceProcess } from './process.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** One node of a test cluster: its id, where it listens, and its process while it runs. */
export interface ClusterNode {
  id: string;
  url: string;
  port: number;
  process: ServiceProcess | null;
}

/**
 * The topology of docs/scale-out.md with local processes: nodes (src/main.ts, each its own DATA_DIR),
 * HAProxy in front of them with the files `npm run placement -- init` writes, and the test run's Temporal
 * dev server shared by all, with one task queue.
 */
export interface Cluster {
  /** The balancer. */
  url: string;
  nodes: Record<string, ClusterNode>;
  dir: string;
  mapFile: string;
  keysFile: string;
  /** HAProxy's runtime API, `host:port`. */
  runtimeApi: string;
  taskQueue: string;
  /** Starts a node again (after `kill`) on the same port and DATA_DIR, and waits for it to be ready. */
  start(id: string): Promise<void>;
  /** SIGKILL: the node is gone at once, as a crashed machine is. */
  kill(id: string): Promise<void>;
  /** Runs `npm run placement -- <args>` (from the sources), with `env` added, and answers what it printed. */
  placement(args: string[], env?: Record<string, string>): Promise<string>;
  /** `--nodes` as the placement CLI takes it: `<id>=127.0.0.1:<port>,...`. */
  nodeList: string;
  stop(): Promise<void>;
}

export interface ClusterOptions {
  nodes: string[];
  /** The `keys` of API_KEYS_FILE. */
  keys: object[];
  temporalAddress: string;
  taskQueue: string;
  slots?: number;
  /** Environment of every node. */
  env?: Record<string, string>;
}

export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const dir = mkdtempSync(join(tmpdir(), 'engram-cluster-'));
  const keysFile = join(dir, 'keys.json');
  writeFileSync(keysFile, JSON.stringify({ keys: options.keys }));
  const ports = await quietPorts(options.nodes.length + 2);
  const [balancerPort, runtimePort] = [ports.pop()!, ports.pop()!];
  const nodes: Record<string, ClusterNode> = {};
  options.nodes.forEach((id, i) => (nodes[id] = { id, port: ports[i]!, url: `http://127.0.0.1:${ports[i]}`, process: null }));
  const out = join(dir, 'haproxy');
  const runtimeApi = `127.0.0.1:${runtimePort}`;
  const placement = async (args: string[], env: Record<string, string> = {}): Promise<string> => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/placement.ts', ...args], { cwd: ROOT, env: { ...process.env, API_KEYS_FILE: keysFile, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += String(c)));
    child.stderr.on('data', (c) => (stderr += String(c)));
    const [code] = (await once(child, 'exit')) as [number | null];
    if (code !== 0) throw new Error(`placement ${args[0]} exited with ${code}: ${stderr}`);
    return stdout;
  };
  const nodeList = options.nodes.map((id) => `${id}=127.0.0.1:${nodes[id]!.port}`).join(',');
  await placement(['init', '--nodes', nodeList, '--out', out, '--slots', String(options.slots ?? 64), '--bind', `127.0.0.1:${balancerPort}`, '--runtime-api', runtimeApi]);
  const mapFile = join(out, 'placement.map');

  const start = async (id: string) => {
    const node = nodes[id]!;
    node.process = await spawnService(
      {
        PORT: String(node.port),
        DATA_DIR: join(dir, id),
        NODE_ID: id,
        PLACEMENT_MAP: mapFile,
        API_KEYS_FILE: keysFile,
        TEMPORAL_ENABLED: 'true',
        TEMPORAL_ADDRESS: options.temporalAddress,
        TEMPORAL_TASK_QUEUE: options.taskQueue,
        ...options.env,
      },
      { until: 'temporal' },
    );
  };
  const kill = async (id: string) => {
    const node = nodes[id]!;
    if (!node.process) return;
    node.process.child.kill('SIGKILL');
    await node.process.exited;
    node.process = null;
  };

  let haproxy: ChildProcess | null = null;
  const stop = async () => {
    haproxy?.kill('SIGTERM');
    await Promise.all(Object.values(nodes).map(async (node) => {
      if (!node.process) return;
      node.process.child.kill('SIGTERM');
      await node.process.exited;
      node.process = null;
    }));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await Promise.all(options.nodes.map(start));
    haproxy = spawn(haproxyBinary(), ['-db', '-f', join(out, 'haproxy.cfg')], { stdio: ['ignore', 'ignore', 'pipe'] });
    let haproxyErr = '';
    haproxy.stderr!.on('data', (c) => (haproxyErr += String(c)));
    const url = `http://127.0.0.1:${balancerPort}`;
    await waitFor(async () => (await fetch(`${url}/status`).catch(() => null))?.status === 200, 15_000, () => `HAProxy did not answer: ${haproxyErr}`);
    return { url, nodes, dir, mapFile, keysFile, runtimeApi, taskQueue: options.taskQueue, start, kill, placement, nodeList, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Debian's HAProxy (.ci/run installs it): on PATH, or in /usr/sbin, which a user's PATH may lack. */
function haproxyBinary(): string {
  return existsSync('/usr/sbin/haproxy') ? '/usr/sbin/haproxy' : 'haproxy';
}

export async function waitFor(ready: () => Promise<boolean>, timeoutMs: number, why: () => string): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; ) {
    if (await ready()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(why());
}
