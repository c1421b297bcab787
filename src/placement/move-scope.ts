import { readMap, switchScope } from './map-file.js';

export interface MoveOptions {
  /** The scope's placement key (src/placement/scope-key.ts) and, for the routes, its tenant's partition. */
  key: string;
  partition: string | undefined;
  /** The node it goes to. */
  to: string;
  /** Each node's base URL, by node id. */
  nodes: Record<string, string>;
  /** An admin key of the scope's tenant. */
  adminKey: string;
  /** The placement map file the nodes follow. */
  mapFile: string;
  /** HAProxy's runtime API (`host:port` or a socket path); without it only the file switches. */
  runtimeApi?: string;
  print: (line: string) => void;
  /** How long to wait for the owners' work in flight to end, and for the nodes to read the new map. */
  waitMs?: number;
}

export interface MoveReport {
  from: string;
  to: string;
  owners: number;
  fields: number;
  lines: number;
}

interface TransferStatus {
  node: string;
  host: string;
  state: string;
  busy_owners: number;
  held_owners: number;
}

/**
 * Moves one scope between nodes (docs/scale-out.md, Moving a scope): the target drops any stale copy and
 * starts receiving; the source freezes the scope (reads go on, writes answer 503 with Retry-After) and
 * its owners' work in flight ends; the declared fields, then every owner's export stream (vectors included,
 * so nothing is embedded again) go to the target; the map switches, in HAProxy first and then in the file
 * the nodes follow; once both nodes read it, the source's copy is removed. A write is acknowledged by the
 * source before the freeze, and so copied, or refused by it and written again on the target: none is lost.
 */
export async function moveScope(o: MoveOptions): Promise<MoveReport> {
  const map = readMap(o.mapFile);
  const from = map.nodeOf(o.key);
  if (from === o.to) throw new Error(`the scope is already on node ${o.to}`);
  const [source, target] = [o.nodes[from], o.nodes[o.to]];
  if (source === undefined) throw new Error(`the map places the scope on node ${from}, and --nodes gives no address for it`);
  if (target === undefined) throw new Error(`--nodes gives no address for node ${o.to}`);
  const waitMs = o.waitMs ?? 60_000;
  const api = caller(o.adminKey, o.partition);

  o.print(`moving ${o.key} from ${from} to ${o.to}`);
  await api(target, 'PUT', '/v1/admin/scopes/transfer', { state: 'none' });
  const stale = (await api(target, 'DELETE', '/v1/admin/scopes/copy')) as { released: { owners: number } };
  if (stale.released.owners > 0) o.print(`removed a stale copy of ${stale.released.owners} owners from ${o.to}`);
  await api(target, 'PUT', '/v1/admin/scopes/transfer', { state: 'receiving' });
  await api(source, 'PUT', '/v1/admin/scopes/transfer', { state: 'frozen' });
  o.print(`frozen on ${from}: reads go on, writes answer 503 until the switch`);
  await until(waitMs, 'the owners\' work in flight to end', async () => ((await api(source, 'GET', '/v1/admin/scopes/transfer')) as TransferStatus).busy_owners === 0);

  const { fields } = (await api(source, 'GET', '/v1/schema/fields')) as { fields: Array<{ name: string; type: string; source: unknown; partition_scope: string | null }> };
  if (fields.length > 0) {
    await api(target, 'PUT', '/v1/schema/fields', { fields: fields.map(({ name, type, source: from, partition_scope }) => ({ name, type, source: from, partition_scope })) });
  }
  let owners = 0;
  let lines = 0;
  for (let cursor: string | null | undefined; cursor !== null; ) {
    const page = (await api(source, 'GET', `/v1/admin/scopes/owners${cursor ? `?cursor=${cursor}` : ''}`)) as { owners: Array<{ entity_id: string; partition: string | null }>; next: string | null };
    for (const owner of page.owners) {
      lines += await copyOwner(o.adminKey, source, target, owner);
      owners++;
    }
    cursor = page.next;
  }
  o.print(`copied ${owners} owners (${lines} records) and ${fields.length} declared fields to ${o.to}`);

  await api(target, 'PUT', '/v1/admin/scopes/transfer', { state: 'received' });
  await switchScope(o.mapFile, o.key, o.to, o.runtimeApi);
  o.print(`switched the map${o.runtimeApi === undefined ? '' : ' in HAProxy and'} in ${o.mapFile}`);
  for (const node of [source, target]) {
    await until(waitMs, `node ${node} to read the new map`, async () => ((await api(node, 'GET', '/v1/admin/scopes/transfer')) as TransferStatus).host === o.to);
  }
  await api(target, 'PUT', '/v1/admin/scopes/transfer', { state: 'none' });
  const released = (await api(source, 'DELETE', '/v1/admin/scopes/copy')) as { released: { owners: number } };
  o.print(`removed the copy of ${released.released.owners} owners from ${from}; the move is complete`);
  return { from, to: o.to, owners, fields: fields.length, lines };
}

/** One owner's export stream from the source, imported on the target as it arrives; answers its lines. */
async function copyOwner(adminKey: string, source: string, target: string, owner: { entity_id: string; partition: string | null }): Promise<number> {
  const query = `entity_id=${encodeURIComponent(owner.entity_id)}${owner.partition === null ? '' : `&partition=${encodeURIComponent(owner.partition)}`}`;
  const headers = { authorization: `Bearer ${adminKey}` };
  const exported = await fetch(`${source}/v1/memory/export?${query}`, { headers });
  if (!exported.ok || !exported.body) throw new Error(`export of ${owner.entity_id} from ${source}: ${exported.status} ${await exported.text()}`);
  let lines = 0;
  const counted = exported.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, out) {
        for (const byte of chunk) if (byte === 10) lines++;
        out.enqueue(chunk);
      },
    }),
  );
  const imported = await fetch(`${target}/v1/memory/import?${query}`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/x-ndjson' },
    body: counted,
    duplex: 'half',
  } as RequestInit);
  if (!imported.ok) throw new Error(`import of ${owner.entity_id} into ${target}: ${imported.status} ${await imported.text()}`);
  return lines;
}

/** A JSON call to a node's API with the admin key and the scope's partition; throws with the node's answer on an error. */
function caller(adminKey: string, partition: string | undefined) {
  return async (node: string, method: string, path: string, body?: unknown): Promise<unknown> => {
    const url = new URL(path, node);
    if (partition !== undefined) url.searchParams.set('partition', partition);
    const res = await fetch(url, {
      method,
      headers: { authorization: `Bearer ${adminKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${url.pathname} on ${node}: ${res.status} ${text}`);
    return text === '' ? undefined : JSON.parse(text);
  };
}

async function until(ms: number, what: string, done: () => Promise<boolean>): Promise<void> {
  for (const deadline = Date.now() + ms; ; ) {
    if (await done()) return;
    if (Date.now() > deadline) throw new Error(`gave up waiting ${ms} ms for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
