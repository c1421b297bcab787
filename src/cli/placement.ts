import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseCommandLine, runTool, UsageError } from './command-line.js';
import { readKeyRing, readKeysFile } from '../auth/key-file.js';
import { balancerErrorFile, keysMapEntries, keysMapText, renderHaproxyConfig, type NodeAddress } from '../placement/haproxy-config.js';
import { replaceMap } from '../placement/haproxy-runtime.js';
import { readMap, switchScope, writeAtomically } from '../placement/map-file.js';
import { moveScope } from '../placement/move-scope.js';
import { NODE_ID, PlacementMap } from '../placement/placement-map.js';
import { rendezvousSlots } from '../placement/rendezvous.js';
import { placementKey } from '../placement/scope-key.js';

const USAGE = `usage: npm run placement -- <command> [options]   (docs/scale-out.md)
  init  --nodes <id>=<host:port>,...  --out <dir>  [--keys <API_KEYS_FILE>] [--slots 64] [--bind 127.0.0.1:8080] [--runtime-api <socket or host:port>]
        writes <dir>/placement.map (kept when it exists), keys.map, haproxy.cfg and the balancer's error answers
  keys  --out <dir>  [--keys <API_KEYS_FILE>] [--runtime-api <address>]
        writes <dir>/keys.map again from the keys file, and replaces it in the running HAProxy
  where --map <file> [--keys <API_KEYS_FILE>] --tenant <t> [--partition <p>]
        prints the node that hosts a scope
  pin   --map <file> [--keys <API_KEYS_FILE>] --tenant <t> [--partition <p>] --node <id> [--runtime-api <address>]
        gives a scope a line of its own in the map file (nodes read it within a second), and in the running HAProxy
  move  --map <file> [--keys <API_KEYS_FILE>] --tenant <t> [--partition <p>] --to <id> --nodes <id>=<host:port>,... [--runtime-api <address>]
        (npm run move-scope; ENGRAM_ADMIN_KEY: an admin key of the tenant) moves a scope and its data to another node`;

/** The template beside src/ (under tsx) or beside dist/ (the built CLI). */
function templatePath(): string {
  for (const up of ['../../', '../../../']) {
    const path = fileURLToPath(new URL(`${up}deploy/haproxy/haproxy.cfg.template`, import.meta.url));
    if (existsSync(path)) return path;
  }
  throw new Error('deploy/haproxy/haproxy.cfg.template not found next to src/');
}

async function main(argv: string[]): Promise<void> {
  const { values, positionals } = parseCommandLine(argv, OPTIONS);
  if (values.help) return void process.stdout.write(`${USAGE}\n`);
  const [command, ...rest] = positionals;
  if (rest.length > 0) throw new UsageError(`unexpected arguments: ${rest.join(' ')}`);
  const keysFile = values.keys ?? process.env.API_KEYS_FILE;
  const required = (name: keyof typeof values): string => {
    const value = values[name];
    if (typeof value !== 'string') throw new UsageError(`--${name} is required`);
    return value;
  };
  const keys = () => {
    if (keysFile === undefined) throw new UsageError('--keys (or API_KEYS_FILE) is required: the keys say how each tenant is placed');
    return keysFile;
  };
  switch (command) {
    case 'init':
      return init({ nodes: parseNodes(required('nodes')), out: resolve(required('out')), keysFile: keys(), slots: Number(values.slots ?? 64), bind: values.bind ?? '127.0.0.1:8080', runtimeApi: values['runtime-api'] });
    case 'keys':
      return writeKeysMap(resolve(required('out')), keys(), values['runtime-api']);
    case 'where': {
      const map = readMap(required('map'));
      return void process.stdout.write(`${map.nodeOf(scopeKey(keys(), required('tenant'), values.partition))}\n`);
    }
    case 'pin':
      return pin(resolve(required('map')), scopeKey(keys(), required('tenant'), values.partition), required('node'), values['runtime-api']);
    case 'move': {
      const adminKey = process.env.ENGRAM_ADMIN_KEY;
      if (adminKey === undefined) throw new UsageError('ENGRAM_ADMIN_KEY is required: an admin key of the tenant (kept out of the command line, which other users can see)');
      const nodes = Object.fromEntries(parseNodes(required('nodes')).map((n) => [n.id, `http://${n.address}`]));
      const report = await moveScope({
        key: scopeKey(keys(), required('tenant'), values.partition),
        partition: values.partition,
        to: required('to'),
        nodes,
        adminKey,
        mapFile: resolve(required('map')),
        ...(values['runtime-api'] === undefined ? {} : { runtimeApi: values['runtime-api'] }),
        print: (line) => process.stdout.write(`${line}\n`),
      });
      return void process.stdout.write(`${JSON.stringify(report)}\n`);
    }
    default:
      throw new UsageError(command === undefined ? 'a command is required: init, keys, where, pin or move' : `unknown command "${command}"`);
  }
}

function init(o: { nodes: NodeAddress[]; out: string; keysFile: string; slots: number; bind: string; runtimeApi: string | undefined }): void {
  if (!Number.isInteger(o.slots) || o.slots < 1 || o.slots > 100_000) throw new UsageError('--slots must be an integer from 1 to 100000');
  mkdirSync(join(o.out, 'errors'), { recursive: true });
  const mapFile = join(o.out, 'placement.map');
  // A map that exists is the truth about where scopes live: generating again must not move any of them.
  const map = existsSync(mapFile) ? readMap(mapFile) : PlacementMap.of(rendezvousSlots(o.nodes.map((n) => n.id), o.slots), []);
  if (!existsSync(mapFile)) writeAtomically(mapFile, map.format());
  const unknown = map.nodes().filter((id) => !o.nodes.some((n) => n.id === id));
  if (unknown.length > 0) throw new UsageError(`the map places scopes on nodes --nodes does not name: ${unknown.join(', ')}`);
  writeKeysMapFile(o.out, o.keysFile);
  writeAtomically(join(o.out, 'errors', '502.http'), balancerErrorFile('gave no valid answer'));
  writeAtomically(join(o.out, 'errors', '504.http'), balancerErrorFile('did not answer in time'));
  const runtimeApi = o.runtimeApi ?? `${join(o.out, 'haproxy.sock')}`;
  const config = renderHaproxyConfig(readFileSync(templatePath(), 'utf8'), {
    bind: o.bind,
    runtimeApi: runtimeApi.includes(':') && !runtimeApi.startsWith('ipv4@') && !runtimeApi.startsWith('/') ? `ipv4@${runtimeApi}` : runtimeApi,
    keysMap: join(o.out, 'keys.map'),
    placementMap: mapFile,
    errorsDir: join(o.out, 'errors'),
    slots: map.slots.length,
    nodes: o.nodes,
  });
  writeAtomically(join(o.out, 'haproxy.cfg'), config);
  process.stdout.write(`wrote ${join(o.out, 'haproxy.cfg')}, placement.map (${map.slots.length} slots over ${map.nodes().join(', ')}) and keys.map\n`);
}

async function writeKeysMap(out: string, keysFile: string, runtimeApi: string | undefined): Promise<void> {
  const entries = writeKeysMapFile(out, keysFile);
  if (runtimeApi !== undefined) await replaceMap(runtimeApi, join(out, 'keys.map'), entries);
  process.stdout.write(`wrote ${join(out, 'keys.map')} (${entries.length} keys)${runtimeApi === undefined ? '' : ', and replaced it in HAProxy'}\n`);
}

function writeKeysMapFile(out: string, keysFile: string): Array<[string, string]> {
  // The service's own reading of the file, so a file it refuses is refused here too (and no key is echoed).
  const entries = keysMapEntries(readKeysFile(keysFile));
  writeAtomically(join(out, 'keys.map'), keysMapText(entries), 0o640);
  return entries;
}

async function pin(mapFile: string, key: string, node: string, runtimeApi: string | undefined): Promise<void> {
  if (!NODE_ID.test(node)) throw new UsageError(`--node must match ${NODE_ID.source}`);
  await switchScope(mapFile, key, node, runtimeApi);
  process.stdout.write(`${key} -> ${node}\n`);
}

/** The text a tenant's scope is placed by, as the keys file says the tenant is placed. */
function scopeKey(keysFile: string, tenant: string, partition: string | undefined): string {
  const byPartition = readKeyRing(keysFile).placedByPartition(tenant);
  if (byPartition && partition === undefined) throw new UsageError(`tenant ${tenant} is placed by partition (it has a multi-tenant key): --partition is required`);
  return placementKey({ tenant, partition: partition ?? null }, byPartition);
}

function parseNodes(text: string): NodeAddress[] {
  const nodes = text.split(',').map((part) => {
    const [id, address] = part.split('=');
    if (id === undefined || address === undefined || !NODE_ID.test(id) || !/^[^\s:]+:\d+$/.test(address)) {
      throw new UsageError(`--nodes takes <id>=<host:port>,...; "${part}" is not one (ids match ${NODE_ID.source})`);
    }
    return { id, address };
  });
  if (new Set(nodes.map((n) => n.id)).size !== nodes.length) throw new UsageError('--nodes names a node twice');
  return nodes;
}


const OPTIONS = {
  nodes: { type: 'string' },
  out: { type: 'string' },
  keys: { type: 'string' },
  slots: { type: 'string' },
  bind: { type: 'string' },
  'runtime-api': { type: 'string' },
  map: { type: 'string' },
  tenant: { type: 'string' },
  partition: { type: 'string' },
  node: { type: 'string' },
  to: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

runTool('placement', USAGE, () => main(process.argv.slice(2)));
