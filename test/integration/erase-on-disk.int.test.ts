import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/keys-cli.js';
import { indexTenant, writeMarkers, type WrittenMarkers } from '../helpers/markers.js';
import { until } from '../helpers/reembed.js';
import { findOnDisk } from '../helpers/scan-data-dir.js';
import { startTestService, type SocketTestService } from '../helpers/service.js';

/**
 * An erased owner's content, looked for as raw bytes in every file of DATA_DIR (LMDB with its free pages,
 * the key slots, vector indexes): after the erasure completes and `npm run compact` has run, none of it is
 * there, whether content was sealed at rest or not; a neighbour written the same way is untouched.
 */
const dirs: string[] = [];
const services: SocketTestService[] = [];
afterEach(async () => {
  for (const svc of services.splice(0)) await svc.close().catch(() => undefined);
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function start(dataDir: string, encryption: 'on' | 'off'): Promise<SocketTestService> {
  // No Temporal: the node erases in process, the same steps as the workflow's.
  const svc = await startTestService({ socket: true, dataDir, env: { CONTENT_ENCRYPTION: encryption } });
  services.push(svc);
  return svc;
}

async function erase(svc: SocketTestService, ownerQuery: string): Promise<void> {
  const answer = await svc.call('DELETE', `/v1/memory?${ownerQuery}`);
  expect(answer.status).toBe(202);
  const receipt = await until(
    () => svc.call('GET', `/v1/memory/erasures/${answer.body.receipt_id}`),
    (res) => res.body.state === 'complete' || res.body.state === 'failed',
  );
  expect(receipt.body.state).toBe('complete');
}

const needles = (m: WrittenMarkers) => ({ ...m.sealed, ...m.indexed });

describe.each(['on', 'off'] as const)('erasing an owner, then compacting (CONTENT_ENCRYPTION=%s)', (encryption) => {
  it('leaves no byte of its content in any file under DATA_DIR, and its neighbour whole', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'engram-erase-disk-'));
    dirs.push(dataDir);
    const svc = await start(dataDir, encryption);
    await indexTenant(svc);
    const gone = await writeMarkers(svc, 'entity_id=erased-owner');
    const kept = await writeMarkers(svc, 'entity_id=kept-owner');
    // A search loads the owner's vector index, so it has one to erase.
    expect((await svc.call('GET', `/v1/search?entity_id=erased-owner&q=${encodeURIComponent(gone.sealed.caption)}`)).status).toBe(200);

    // The scan sees what it looks for: the indexed values (and, unsealed, everything) are on disk before.
    await svc.close();
    const before = findOnDisk(dataDir, needles(gone));
    expect(before.declared).toEqual(['engram.mdb']);
    // Unsealed, everything but the media bytes (which the tenant's blob key still seals) is in the clear.
    if (encryption === 'off') expect(Object.keys(before).sort()).toEqual(Object.keys(needles(gone)).filter((name) => name !== 'mediaBytes').sort());

    const again = await start(dataDir, encryption);
    await erase(again, 'entity_id=erased-owner');
    await again.close();
    const compacted = await runCli('src/cli/compact.ts', [], { DATA_DIR: dataDir });
    expect(compacted.code).toBe(0);

    expect(findOnDisk(dataDir, needles(gone))).toEqual({});
    // The neighbour's content is still there and reads back whole.
    const after = await start(dataDir, encryption);
    expect((await after.call('GET', `/v1/documents/${kept.docId}?entity_id=kept-owner`)).body).toMatchObject({ title: kept.sealed.docTitle });
    const query = await after.call('POST', '/v1/query', { body: { filter: { field: 'project', op: 'in', value: [gone.indexed.declared, kept.indexed.declared] } } });
    expect(query.body.documents.map((d: { doc_id: string }) => d.doc_id)).toEqual([kept.docId]);
    expect((await after.call('GET', '/v1/memory/entities?entity_id=erased-owner')).body.entities).toEqual([]);
  });
});
