import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/keys-cli.js';
import { indexTenant, MARKER_IMAGE, writeMarkers } from '../helpers/markers.js';
import { findOnDisk } from '../helpers/scan-data-dir.js';
import { startTestService, type SocketTestService } from '../helpers/service.js';

/**
 * Encryption at rest, as a user checks it on disk: content written over real HTTP is in no file of
 * DATA_DIR once the service has stopped, except the values the field indexes hold (built-in `tags` and
 * `source`, declared fields), which stay in LMDB until the document is deleted and the store compacted.
 */
const dirs: string[] = [];
const services: SocketTestService[] = [];
afterEach(async () => {
  for (const svc of services.splice(0)) await svc.close().catch(() => undefined);
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function start(dataDir: string): Promise<SocketTestService> {
  // A socket: the content goes through the real HTTP server, as a client sends it.
  const svc = await startTestService({ socket: true, dataDir });
  services.push(svc);
  return svc;
}

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'engram-at-rest-'));
  dirs.push(dir);
  return dir;
}

const tag = randomBytes(6).toString('hex');
const marker = (what: string) => `mk-${what}-${tag}`;

describe('content at rest (CONTENT_ENCRYPTION=on, the default)', () => {
  it('keeps every content marker out of every file of DATA_DIR, but the field indexes values', async () => {
    const dataDir = tempDir();
    const svc = await start(dataDir);
    await indexTenant(svc);
    const q = 'entity_id=at-rest-owner';
    const { sealed: secret, indexed, entityId, docId, mediaId } = await writeMarkers(svc, q);

    // Everything reads back through the API, the field index included.
    expect((await svc.call('GET', `/v1/memory/entities/${entityId}?${q}`)).body).toMatchObject({ display_name: secret.entityName, aliases: [secret.entityAlias] });
    expect((await svc.call('GET', `/v1/memory/facts?${q}`)).body.facts.map((f: { value: string }) => f.value)).toEqual([secret.factValue]);
    expect((await svc.call('GET', `/v1/documents/${docId}?${q}`)).body).toMatchObject({ title: secret.docTitle, content: `minutes: ${secret.docContent}` });
    const found = await svc.call('POST', '/v1/query', { body: { filter: { field: 'project', op: 'eq', value: indexed.declared } } });
    expect(found.body.documents.map((d: { doc_id: string }) => d.doc_id)).toEqual([docId]);
    const search = await svc.call('GET', `/v1/search?${q}&q=${encodeURIComponent(secret.caption)}&k=1`);
    expect(search.body.results[0].doc_id).toBe(mediaId);
    const download = await fetch(`${svc.url}/v1/documents/${mediaId}/download?${q}`, { headers: { authorization: 'Bearer sk_test_acme_0123456789abcdef' } });
    expect(Buffer.from(await download.arrayBuffer()).equals(MARKER_IMAGE)).toBe(true);

    await svc.close();
    const onDisk = findOnDisk(dataDir, { ...secret, ...indexed });
    // Content that no field indexes: nowhere, in no file, not even in LMDB's free pages.
    expect(Object.keys(onDisk).filter((name) => name in secret)).toEqual([]);
    // Indexed values: in the field indexes (LMDB) only; the declared one must be there, or this proves nothing.
    expect(onDisk.declared).toEqual(['engram.mdb']);
    expect(Object.values(onDisk).flat().every((file) => file === 'engram.mdb')).toBe(true);
  });

  it('finds a plain-text marker on disk with CONTENT_ENCRYPTION=off (the scan sees what it looks for)', async () => {
    const dataDir = tempDir();
    const svc = await startTestService({ socket: true, dataDir, env: { CONTENT_ENCRYPTION: 'off' } });
    services.push(svc);
    const value = marker('clear-fact');
    expect((await svc.call('POST', '/v1/memory/facts?entity_id=clear-owner', { body: { predicate: 'p', value } })).status).toBe(201);
    await svc.close();
    expect(findOnDisk(dataDir, { value })).toEqual({ value: ['engram.mdb'] });
  });
});

describe('npm run compact', () => {
  it('refuses while the service runs; after a hard delete it removes the declared-field value from every file and keeps the rest', async () => {
    const dataDir = tempDir();
    const svc = await start(dataDir);
    await indexTenant(svc);
    const q = 'entity_id=compact-owner';
    const value = marker('erased-field');
    const doomed = await svc.call('POST', `/v1/documents?${q}`, { body: { content: 'to be erased', metadata: { project: value } } });
    const kept = await svc.call('POST', `/v1/documents?${q}`, { body: { content: 'to be kept', metadata: { project: 'kept' } } });
    expect((await svc.call('POST', '/v1/query', { body: { filter: { field: 'project', op: 'eq', value } } })).body.documents).toHaveLength(1);
    expect(findOnDisk(dataDir, { value })).toEqual({ value: ['engram.mdb'] });

    const refused = await runCli('src/cli/compact.ts', [], { DATA_DIR: dataDir });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/a service \(pid \d+\) is running on .*stop it first/);

    expect((await svc.call('DELETE', `/v1/documents/${doomed.body.doc_id}?${q}&hard=true`)).status).toBe(204);
    await svc.close();
    const compacted = await runCli('src/cli/compact.ts', [], { DATA_DIR: dataDir });
    expect(compacted.stderr).toBe('');
    expect(compacted.code).toBe(0);
    expect(findOnDisk(dataDir, { value })).toEqual({});
    expect(statSync(join(dataDir, 'engram.mdb')).mode & 0o777).toBe(0o600);

    const again = await start(dataDir);
    expect((await again.call('GET', `/v1/documents/${kept.body.doc_id}?${q}`)).body).toMatchObject({ content: 'to be kept' });
    expect((await again.call('POST', '/v1/query', { body: { filter: { field: 'project', op: 'eq', value: 'kept' } } })).body.documents).toHaveLength(1);
  });
});
