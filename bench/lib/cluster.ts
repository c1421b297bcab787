import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { readMap } from '../../src/placement/map-file.js';
import type { PlacementMap } from '../../src/placement/placement-map.js';
import { quietPorts } from './ports.js';
import { ROOT, spawnService, stopChild, type BenchService } from './processes.js';

/**
 * docs/scale-out.md's topology for a benchmark: nodes running the built service with plain node, as every
 * server a bench compares runs (test/helpers/cluster.ts runs them under tsx, which serves ~15% fewer
 * requests than the lone node a bench sets beside them), behind Debian's HAProxy, with the files the built
 * `npm run placement -- init` writes, all on one Temporal server.
 */
export interface BenchCluster {
  /** The balancer. */
  url: string;
  haproxy: ChildProcess;
  nodes: Record<string, BenchService>;
  /** The map `init` generated: which node hosts which scope. */
  map: PlacementMap;
  stop(): Promise<void>;
}

export interface BenchClusterOptions {
  /** Where the nodes' DATA_DIRs and the balancer's files go. */
  dir: string;
  nodes: string[];
  keysFile: string;
  /** Environment of every node (Temporal, embedder). */
  env: Record<string, string>;
  slots?: number;
}

export async function startBenchCluster(o: BenchClusterOptions): Promise<BenchCluster> {
  const chosen = await quietPorts(o.nodes.length + 2);
  const [balancerPort, runtimePort] = [chosen.pop()!, chosen.pop()!];
  const ports = new Map(o.nodes.map((id, i) => [id, chosen[i]!]));
  const out = join(o.dir, 'haproxy');
  const nodeList = o.nodes.map((id) => `${id}=127.0.0.1:${ports.get(id)}`).join(',');
  const cli = join(ROOT, 'dist/src/cli/placement.js');
  if (!existsSync(cli)) throw new Error('dist/src/cli/placement.js is missing: run npm run build first');
  const init = ['init', '--nodes', nodeList, '--out', out, '--keys', o.keysFile, '--slots', String(o.slots ?? 64), '--bind', `127.0.0.1:${balancerPort}`, '--runtime-api', `127.0.0.1:${runtimePort}`];
  await promisify(execFile)(process.execPath, [cli, ...init], { cwd: ROOT });
  const mapFile = join(out, 'placement.map');

  const nodes: Record<string, BenchService> = {};
  let haproxy: ChildProcess | null = null;
  const stop = async () => {
    await Promise.all([...(haproxy ? [stopChild(haproxy)] : []), ...Object.values(nodes).map((node) => node.stop())]);
  };
  try {
    await Promise.all(
      o.nodes.map(async (id) => {
        const env = { ...o.env, PORT: String(ports.get(id)), DATA_DIR: join(o.dir, id), NODE_ID: id, PLACEMENT_MAP: mapFile, API_KEYS_FILE: o.keysFile };
        const { url, child } = await spawnService(env);
        nodes[id] = { url, child, stop: () => stopChild(child) };
      }),
    );
    // Its request log goes to stdout, as in a container; here to nowhere, but each line is still formatted.
    haproxy = spawn(existsSync('/usr/sbin/haproxy') ? '/usr/sbin/haproxy' : 'haproxy', ['-db', '-f', join(out, 'haproxy.cfg')], { stdio: ['ignore', 'ignore', 'pipe'] });
    let errors = '';
    haproxy.stderr!.on('data', (chunk) => (errors += String(chunk)));
    const url = `http://127.0.0.1:${balancerPort}`;
    await until(async () => (await fetch(`${url}/status`).catch(() => null))?.status === 200, () => `HAProxy did not answer: ${errors}`);
    return { url, haproxy, nodes, map: readMap(mapFile), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Resolves once `GET /status` of the service at `url` reports Temporal ready (its worker polls). */
export async function temporalReady(url: string): Promise<void> {
  await until(async () => {
    const status = (await (await fetch(`${url}/status`)).json()) as { temporal?: { ready?: boolean } };
    return status.temporal?.ready === true;
  }, () => `Temporal did not become ready on ${url}`);
}

async function until(ready: () => Promise<boolean>, why: () => string, timeoutMs = 90_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; ) {
    if (await ready()) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(why());
}
