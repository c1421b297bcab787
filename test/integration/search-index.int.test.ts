import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';

/**
 * The approximate index through the real service: a low VECTOR_EXACT_MAX puts the owner on hnswlib, whose
 * file is persisted under DATA_DIR/vectors, reloaded after a restart, and rebuilt from LMDB when missing.
 */
const dataDir = mkdtempSync(join(tmpdir(), 'engram-index-'));
const env = { VECTOR_EXACT_MAX: '20' };
let svc: TestService | undefined;
afterAll(async () => {
  await svc?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const topics = ['glacier', 'volcano', 'desert', 'rainforest', 'tundra', 'savanna', 'reef', 'canyon', 'delta', 'steppe'];
const texts = Array.from({ length: 120 }, (_, i) => `${topics[i % 10]} field note ${i}: observation ${i * 7} of the ${topics[(i * 3) % 10]} site`);

async function topHit(s: TestService, q: string, extra = ''): Promise<string | undefined> {
  const res = await s.call('GET', `/v1/search?entity_id=idx&k=3&q=${encodeURIComponent(q)}${extra}`);
  expect(res.status).toBe(200);
  return res.body.results[0]?.passage;
}

const owner = { tenant: 'acme', partition: null, entityId: 'idx' };
const ownerIndex = (s: TestService) => s.deps.actors.actorFor(owner).documents.vectorIndex();

async function settle(s: TestService): Promise<void> {
  await (await ownerIndex(s)).settled();
}

describe('vector index above the exact threshold', () => {
  it('answers the same through hnswlib, reflects deletes and restores at once, persists and rebuilds', async () => {
    svc = await startTestService({ dataDir, env });
    const ids: string[] = [];
    for (const content of texts) ids.push((await svc.call('POST', '/v1/documents?entity_id=idx', { body: { content } })).body.doc_id);
    await settle(svc);
    expect((await ownerIndex(svc)).approximate).toBe(true);
    expect(await topHit(svc, texts[42]!)).toBe(texts[42]);

    await svc.call('DELETE', `/v1/documents/${ids[42]}?entity_id=idx`);
    expect(await topHit(svc, texts[42]!)).not.toBe(texts[42]);
    await svc.call('POST', `/v1/documents/${ids[42]}/restore?entity_id=idx`);
    expect(await topHit(svc, texts[42]!)).toBe(texts[42]);
    await svc.call('DELETE', `/v1/documents/${ids[7]}?entity_id=idx&hard=true`);
    expect(await topHit(svc, texts[7]!)).not.toBe(texts[7]);
    await svc.stop();
    expect(readdirSync(join(dataDir, 'vectors')).some((f) => f.endsWith('.hnsw'))).toBe(true);

    // Restart: the persisted file is loaded and still knows the hard delete.
    svc = await startTestService({ dataDir, env });
    expect(await topHit(svc, texts[99]!)).toBe(texts[99]);
    await settle(svc);
    expect(await topHit(svc, texts[7]!)).not.toBe(texts[7]);
    expect(await topHit(svc, texts[42]!)).toBe(texts[42]);
    await svc.stop();

    // Files gone: rebuilt from LMDB.
    rmSync(join(dataDir, 'vectors'), { recursive: true, force: true });
    svc = await startTestService({ dataDir, env });
    expect(await topHit(svc, texts[13]!)).toBe(texts[13]);
    await settle(svc);
    expect((await ownerIndex(svc)).approximate).toBe(true);
    expect(await topHit(svc, texts[13]!)).toBe(texts[13]);
    expect(await topHit(svc, texts[7]!)).not.toBe(texts[7]);
    const filtered = await svc.call('GET', `/v1/search?entity_id=idx&k=100&q=glacier&modality=image`);
    expect(filtered.body.count).toBe(0);
    const many = await svc.call('GET', `/v1/search?entity_id=idx&k=100&q=${encodeURIComponent('field note observation site')}`);
    expect(many.body.count).toBe(100);
  });
});
