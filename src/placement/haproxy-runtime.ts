import { connect } from 'node:net';

/**
 * One command to HAProxy's runtime API (the `stats socket` of deploy/haproxy/haproxy.cfg.template): a Unix
 * socket path, or `host:port` (also as the configuration writes it, `ipv4@host:port`). Answers HAProxy's
 * reply, which closes the connection after each command.
 */
export function runtimeCommand(address: string, command: string, timeoutMs = 5000): Promise<string> {
  const tcp = /^(?:ipv4@)?(.+):(\d+)$/.exec(address);
  return new Promise((resolve, reject) => {
    const socket = tcp ? connect({ host: tcp[1]!, port: Number(tcp[2]) }) : connect({ path: address });
    let reply = '';
    socket.setEncoding('utf8');
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error(`HAProxy's runtime API at ${address} did not answer in ${timeoutMs} ms`)));
    socket.on('connect', () => socket.end(`${command}\n`));
    socket.on('data', (chunk: string) => (reply += chunk));
    socket.on('error', (error) => reject(new Error(`HAProxy's runtime API at ${address}: ${error.message}`)));
    socket.on('close', () => resolve(reply.trim()));
  });
}

const COMMANDS_PER_CONNECTION = 200;

/** Sets one map entry in the running HAProxy (adding it when the map has no such key). */
export async function setMapEntry(address: string, mapFile: string, key: string, value: string): Promise<void> {
  const set = await runtimeCommand(address, `set map ${mapFile} ${key} ${value}`);
  if (set === '') return;
  if (!/not found/i.test(set)) throw new Error(`HAProxy refused "set map" on ${mapFile}: ${set}`);
  const add = await runtimeCommand(address, `add map ${mapFile} ${key} ${value}`);
  if (add !== '') throw new Error(`HAProxy refused "add map" on ${mapFile}: ${add}`);
}

/**
 * Replaces a whole map in the running HAProxy in one step (prepare, fill, commit): requests see the old
 * entries or the new ones, never a map half filled.
 */
export async function replaceMap(address: string, mapFile: string, entries: ReadonlyArray<readonly [string, string]>): Promise<void> {
  const prepared = await runtimeCommand(address, `prepare map ${mapFile}`);
  const version = /New version created: (\d+)/.exec(prepared)?.[1];
  if (version === undefined) throw new Error(`HAProxy refused "prepare map" on ${mapFile}: ${prepared}`);
  // Several commands per connection, separated by ";": each answers nothing when it succeeds.
  for (let at = 0; at < entries.length; at += COMMANDS_PER_CONNECTION) {
    const batch = entries.slice(at, at + COMMANDS_PER_CONNECTION).map(([key, value]) => `add map @${version} ${mapFile} ${key} ${value}`);
    const added = await runtimeCommand(address, batch.join('; '));
    if (added !== '') throw new Error(`HAProxy refused "add map" on ${mapFile}: ${added}`);
  }
  const committed = await runtimeCommand(address, `commit map @${version} ${mapFile}`);
  if (committed !== '') throw new Error(`HAProxy refused "commit map" on ${mapFile}: ${committed}`);
}
