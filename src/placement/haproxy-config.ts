import { keyDigest, type KeysFile } from '../auth/keys.js';
import { placementKey } from './scope-key.js';

/** A node as the balancer reaches it. */
export interface NodeAddress {
  id: string;
  /** `host:port` of the node's HTTP listener. */
  address: string;
}

export interface HaproxySettings {
  /** Where the balancer listens (HAProxy `bind`): `host:port`. */
  bind: string;
  /** HAProxy's runtime API: a Unix socket path or `ipv4@host:port`. */
  runtimeApi: string;
  keysMap: string;
  placementMap: string;
  /** Where the balancer's own error answers (errors/*.http) are. */
  errorsDir: string;
  slots: number;
  nodes: readonly NodeAddress[];
}

/**
 * The keys map: SHA-256 of each key → the text its scopes are placed by before the partition: the tenant,
 * URI-encoded, with a trailing `/` when the tenant is placed by partition (any of its keys is multi-tenant);
 * the balancer appends the request's `partition` to those (src/placement/scope-key.ts says the same).
 */
export function keysMapEntries(file: KeysFile): Array<[string, string]> {
  const partitioned = new Set(file.keys.filter((k) => k.multi_tenant).map((k) => k.tenant));
  return file.keys.map((entry) => {
    const byPartition = partitioned.has(entry.tenant);
    const prefix = placementKey({ tenant: entry.tenant, partition: null }, byPartition);
    return [(entry.key_sha256 ?? keyDigest(entry.key ?? '')).toLowerCase(), prefix];
  });
}

export function keysMapText(entries: ReadonlyArray<readonly [string, string]>): string {
  const lines = ['# Engram keys map (docs/scale-out.md): SHA-256 of a key -> its tenant, "/" ending a tenant placed by partition.'];
  for (const [digest, prefix] of entries) lines.push(`${digest} ${prefix}`);
  return `${lines.join('\n')}\n`;
}

/** deploy/haproxy/haproxy.cfg.template with the deployment's values in place of its `{{...}}`. */
export function renderHaproxyConfig(template: string, settings: HaproxySettings): string {
  const check = '    option httpchk GET /status\n    http-check expect rstatus ^(200|503)$';
  const server = (node: NodeAddress) => `    server ${node.id} ${node.address} check inter 1s fall 2 rise 1`;
  const values: Record<string, string> = {
    bind: settings.bind,
    runtime_api: settings.runtimeApi,
    keys_map: settings.keysMap,
    placement_map: settings.placementMap,
    errors_dir: settings.errorsDir,
    slots: String(settings.slots),
    backends: settings.nodes.map((node) => `backend ${node.id}\n${check}\n${server(node)}\n`).join('\n'),
    any_node_servers: settings.nodes.map(server).join('\n'),
  };
  return template.replace(/\{\{([a-z_]+)\}\}/g, (whole, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`haproxy.cfg.template names an unknown value ${whole}`);
    return value;
  });
}

/**
 * The balancer's answers when the node cannot give one (it died mid-request, or took too long): 503
 * `unavailable` with Retry-After, in the service's error format, whatever HAProxy's own status was.
 */
export function balancerErrorFile(reason: string): string {
  const body = `${JSON.stringify({ error: `the node hosting this scope ${reason}; retry later`, code: 'unavailable', request_id: 'balancer' })}\n`;
  return ['HTTP/1.1 503 Service Unavailable', 'Content-Type: application/json', 'Retry-After: 5', 'Cache-Control: no-store', 'Connection: close', `Content-Length: ${Buffer.byteLength(body)}`, '', body].join('\r\n');
}
