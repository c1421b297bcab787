import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request, type ClientRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open } from 'lmdb';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { keyedCall, spawnService, type ServiceProcess } from '../helpers/process.js';
import { until } from '../helpers/reembed.js';
import { KEYS, startTestService, type SocketTestService } from '../helpers/service.js';

/**
 * An import runs behind an owner hold (README, Export and import): until it answers, the owner reads as one
 * that never existed and refuses every other write, erasure and import; an import cut short by `kill -9` is
 * purged at the next start, leaving the owner empty and free.
 */
const NDJSON = { 'content-type': 'application/x-ndjson' };
const FACTS = 1500;
const dirs: string[] = [];
let svc: SocketTestService | null = null;
let child: ServiceProcess | null = null;

afterAll(async () => {
  await svc?.stop();
  child?.child.kill('SIGKILL');
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** An owner's export: an entity and FACTS facts about the owner, as NDJSON lines. */
async function exportOfMany(call: (method: string, path: string, body?: unknown) => Promise<{ status: number; text: string }>): Promise<string[]> {
  expect((await call('POST', '/v1/memory/entities?entity_id=src', { entity_type: 'person', display_name: 'Ada', memory_entity_id: 'ada' })).status).toBe(201);
  for (let i = 0; i < FACTS; i++) expect((await call('POST', '/v1/memory/facts?entity_id=src', { predicate: `p${i}`, value: i })).status).toBe(201);
  const res = await call('GET', '/v1/memory/export?entity_id=src');
  expect(res.status).toBe(200);
  return res.text.trimEnd().split('\n');
}

/** Starts an import and sends the first `lines`, leaving the upload open. */
function startImport(url: string, key: string, owner: string, lines: string[]): ClientRequest {
  const req = request(`${url}/v1/memory/import?entity_id=${owner}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, ...NDJSON } });
  req.on('error', () => undefined);
  req.write(lines.map((l) => `${l}\n`).join(''));
  return req;
}

/** Whether LMDB (read from outside the service) holds a record of the owner: an import batch has committed. */
function hasRecordsOnDisk(dataDir: string, tenant: string, owner: string): boolean {
  const env = open({ path: join(dataDir, 'engram.mdb'), readOnly: true });
  try {
    const records = env.openDB({ name: 'records' });
    for (const _ of records.getKeys({ start: [tenant, '', owner], end: [tenant, '', owner, '\uffff'], limit: 1 })) return true;
    return false;
  } finally {
    void env.close();
  }
}

describe('an import behind its owner hold', () => {
  it('keeps the owner invisible and refuses other writes until it answers, then shows it whole', async () => {
    svc = await startTestService({ socket: true });
    const node = svc;
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await node.call(method, path, { key: KEYS.acmeAdmin, body });
      const text = res.body === undefined ? '' : typeof res.body === 'string' ? res.body : `${JSON.stringify(res.body)}\n`;
      return { status: res.status, text, body: res.body };
    };
    const lines = await exportOfMany(call);
    const half = Math.floor(lines.length / 2);
    const req = startImport(node.url, KEYS.acmeAdmin, 'copy', lines.slice(0, half));
    const answer = new Promise<number>((resolve) => req.on('response', (res) => (res.resume(), resolve(res.statusCode ?? 0))));
    // A failed expectation below must not leave the upload open (the service would wait for it at stop).
    onTestFinished(() => void req.destroy());
    // Batches of the first half are committed (the hold lets the import's own writes through)...
    await until(async () => node.deps.graph.hasRecords({ tenant: 'acme', partition: null, entityId: 'copy' }), (has) => has);

    // ...and the owner still reads as one that never existed, and refuses everyone else.
    expect((await call('GET', '/v1/memory/entities?entity_id=copy')).body).toMatchObject({ entities: [], count: 0 });
    expect((await call('GET', '/v1/memory/facts?entity_id=copy')).body).toMatchObject({ facts: [], count: 0 });
    expect((await call('GET', '/v1/memory/entities/ada?entity_id=copy')).status).toBe(404);
    expect((await call('GET', '/v1/memory/export?entity_id=copy')).text.trim()).toBe('');
    expect((await call('POST', '/v1/memory/facts?entity_id=copy', { predicate: 'x', value: 1 })).status).toBe(409);
    expect((await call('DELETE', '/v1/memory?entity_id=copy')).status).toBe(409);
    const second = await node.call('POST', '/v1/memory/import?entity_id=copy', { key: KEYS.acmeAdmin, rawBody: `${lines[0]}\n`, headers: NDJSON });
    expect(second.status).toBe(409);

    req.end(lines.slice(half).map((l) => `${l}\n`).join(''));
    expect(await answer).toBe(200);
    expect((await call('GET', '/v1/memory/facts?entity_id=copy&limit=1000')).body.count).toBe(1000);
    const copy = (await call('GET', '/v1/memory/export?entity_id=copy')).text.trimEnd().split('\n');
    expect(copy.map((l) => l.replaceAll('"entity_id":"copy"', '"entity_id":"src"'))).toEqual(lines);
  }, 180_000);

  it('is purged at the next start when the service is killed in the middle, leaving the owner empty and free', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'engram-import-kill-'));
    dirs.push(dir);
    const key = 'sk_import_kill_0123456789abcdef';
    const keysFile = join(dir, 'keys.json');
    writeFileSync(keysFile, JSON.stringify({ keys: [{ key, tenant: 'kill', admin: true }] }));
    const env = { DATA_DIR: join(dir, 'data'), API_KEYS_FILE: keysFile };
    child = await spawnService(env);
    const keyed = keyedCall(key);
    const call = (method: string, path: string, body?: unknown, ndjson?: string) => keyed(child!.url, method, path, body, ndjson);
    const lines = await exportOfMany(call);
    startImport(child.url, key, 'copy', lines.slice(0, Math.floor(lines.length / 2)));
    await until(async () => hasRecordsOnDisk(env.DATA_DIR, 'kill', 'copy'), (has) => has);
    child.child.kill('SIGKILL');
    await child.exited;

    child = await spawnService(env);
    // The roll-back runs at start; once it has released the owner, the whole export goes in.
    const res = await until(() => call('POST', '/v1/memory/import?entity_id=copy', undefined, lines.map((l) => `${l}\n`).join('')), (r) => r.status !== 409);
    expect(res.status).toBe(200);
    const copy = (await call('GET', '/v1/memory/export?entity_id=copy')).text.trimEnd().split('\n');
    expect(copy.map((l) => l.replaceAll('"entity_id":"copy"', '"entity_id":"src"'))).toEqual(lines);
  }, 180_000);
});
