import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { ownerKeysOnDisk, vectorFileExists } from '../helpers/erase.js';
import { keyedCall, spawnService, type ServiceProcess } from '../helpers/process.js';
import { until } from '../helpers/reembed.js';

/**
 * `kill -9` of the service in the middle of an owner's erasure (small transactions, so it spans hundreds):
 * the next process's worker goes on with what is left, and the erasure completes with every record counted
 * exactly once and no key of the owner left in LMDB.
 */
const dir = mkdtempSync(join(tmpdir(), 'engram-erase-kill-'));
const KEY = 'sk_erase_kill_0123456789abcdef';
const OWNER = 'big-owner';
const DOCS = 600;
const FACTS = 150;
let child: ServiceProcess | null = null;

afterAll(async () => {
  child?.child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

const call = keyedCall(KEY);

describe('an erasure survives kill -9 of the service', () => {
  it('resumes at restart and completes, leaving no key of the owner', async () => {
    const dataDir = join(dir, 'data');
    const keysFile = join(dir, 'keys.json');
    const yaml = join(dir, 'temporal.yaml');
    writeFileSync(keysFile, JSON.stringify({ tenants: {}, keys: [{ key: KEY, tenant: 'kill' }] }));
    // A slice lost with the process is retried 2 s after its last heartbeat.
    writeFileSync(yaml, 'activities:\n  heartbeat_timeout_ms: 2000\n  retry:\n    initial_interval_ms: 200\n');
    const env = {
      DATA_DIR: dataDir,
      API_KEYS_FILE: keysFile,
      TEMPORAL_ENABLED: 'true',
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TEMPORAL_TASK_QUEUE: `erase-kill-${randomUUID()}`,
      TEMPORAL_CONFIG: yaml,
      ERASE_DOCS_PER_TRANSACTION: '5',
      ERASE_KEYS_PER_TRANSACTION: '20',
      // The owner's vectors go to hnswlib, whose file is written once 100 labels are in it.
      VECTOR_EXACT_MAX: '50',
      VECTOR_CHECKPOINT_LABELS: '100',
    };
    child = await spawnService(env, { until: 'temporal' });
    const url = child.url;
    for (let i = 0; i < DOCS; i += 100) {
      const documents = Array.from({ length: 100 }, (_, j) => ({ content: `note ${i + j}: water the orchids on day ${i + j}`, metadata: { n: i + j } }));
      expect((await call(url, 'POST', `/v1/documents/batch?entity_id=${OWNER}`, { documents })).status).toBe(201);
    }
    for (let i = 0; i < FACTS; i++) expect((await call(url, 'POST', `/v1/memory/facts?entity_id=${OWNER}`, { predicate: `p${i % 10}`, value: i })).status).toBe(201);
    expect((await call(url, 'POST', '/v1/memory/facts?entity_id=neighbour', { predicate: 'color', value: 'red' })).status).toBe(201);
    await call(url, 'GET', `/v1/search?entity_id=${OWNER}&q=orchids`); // opens the owner's vector index
    const scope = { tenant: 'kill', partition: null, entityId: OWNER };
    await until(async () => vectorFileExists(dataDir, scope), Boolean, 60_000);

    const answer = await call(url, 'DELETE', `/v1/memory?entity_id=${OWNER}`);
    expect(answer.status).toBe(202);
    const receipt = () => call(url, 'GET', `/v1/memory/erasures/${answer.body.receipt_id}`);
    const midway = await until(receipt, (r) => r.body?.counts?.documents > 0, 60_000);
    child.child.kill('SIGKILL');
    expect((await child.exited)[1]).toBe('SIGKILL');
    expect(midway.body.state).toBe('running');
    expect(midway.body.counts.documents).toBeLessThan(DOCS);

    child = await spawnService(env, { until: 'temporal' });
    const restarted = child.url;
    const done = await until(() => call(restarted, 'GET', `/v1/memory/erasures/${answer.body.receipt_id}`), (r) => r.body?.state === 'complete', 120_000);
    // Every record counted once: the counts commit with the deletes, so the lost slice neither lost nor doubled any.
    expect(done.body.counts).toMatchObject({ documents: DOCS, passages: DOCS, facts: FACTS });
    expect(done.body.counts.vector_files).toBeGreaterThan(0);
    expect((await call(restarted, 'GET', '/v1/memory/facts?entity_id=neighbour')).body.count).toBe(1);
    child.child.kill('SIGTERM');
    await child.exited;
    child = null;

    expect(await ownerKeysOnDisk(dataDir, scope)).toEqual([]);
    expect(vectorFileExists(dataDir, scope)).toBe(false);
  }, 300_000);
});
