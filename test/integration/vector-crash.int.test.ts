import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnService } from '../helpers/process.js';
import { KEYS, startTestService, type TestService } from '../helpers/service.js';

/**
 * kill -9 during one owner's ingest above the exact threshold: the vector worker has checkpointed the
 * owner's hnswlib file as it grew, so the restarted service loads that file and adds only the labels above
 * its mark (never a rebuild from scratch), and every acknowledged document is found by search.
 */
const dataDir = mkdtempSync(join(tmpdir(), 'engram-vector-crash-'));
const keysFile = `${dataDir}-keys.json`;
writeFileSync(keysFile, JSON.stringify({ keys: [{ key: KEYS.acme, tenant: 'acme', principal: 'acme-backend' }] }));
const env = { VECTOR_EXACT_MAX: '200', VECTOR_CHECKPOINT_LABELS: '300' };
let svc: TestService | undefined;
afterAll(async () => {
  await svc?.stop();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(keysFile, { force: true });
});

const TOTAL = 3000;
const words = ['amber', 'basalt', 'cedar', 'delta', 'ember', 'fjord', 'garnet', 'harbor', 'indigo', 'juniper', 'kelp', 'lagoon', 'marble', 'nectar', 'onyx', 'prairie'];
/** A text no other document shares: its number spelled as three words plus the number itself. */
const textOf = (i: number) => `field log ${i}: ${words[i % 16]} ${words[(i >> 4) % 16]} ${words[(i >> 8) % 16]} survey number ${i}`;

/** The `covers` mark of the owner's checkpoint on disk, 0 while there is none. */
function checkpointCovers(): number {
  const dir = join(dataDir, 'vectors');
  if (!existsSync(dir)) return 0;
  const metas = readdirSync(dir).filter((f) => f.endsWith('.json'));
  return Math.max(0, ...metas.map((f) => (JSON.parse(readFileSync(join(dir, f), 'utf8')) as { covers: number }).covers));
}

describe('vector index after kill -9', () => {
  it('reloads the checkpointed file and finds every acknowledged document', async () => {
    const first = await spawnService({ DATA_DIR: dataDir, API_KEYS_FILE: keysFile, ...env });
    const acknowledged = new Map<number, string>();
    let next = 0;
    let killed = false;
    const client = async () => {
      while (!killed && next < TOTAL) {
        const i = next++;
        try {
          const res = await fetch(`${first.url}/v1/documents?entity_id=crash`, {
            method: 'POST',
            headers: { authorization: `Bearer ${KEYS.acme}`, 'content-type': 'application/json' },
            body: JSON.stringify({ content: textOf(i) }),
          });
          if (res.status === 201) acknowledged.set(i, ((await res.json()) as { doc_id: string }).doc_id);
        } catch {
          // The process was killed with this request in flight: it was never acknowledged.
        }
      }
    };
    const clients = Array.from({ length: 8 }, client);
    // Killed mid-ingest, once a checkpoint is on disk (the point of the test is that it is used).
    while (next < TOTAL && (acknowledged.size < 2000 || checkpointCovers() === 0)) await sleep(20);
    first.child.kill('SIGKILL');
    killed = true;
    expect((await first.exited)[1]).toBe('SIGKILL');
    await Promise.all(clients);
    const covers = checkpointCovers();
    expect(covers).toBeGreaterThan(0);

    svc = await startTestService({ dataDir, env });
    const index = await svc.deps.actors.actorFor({ tenant: 'acme', partition: null, entityId: 'crash' }).documents.vectorIndex();
    const missed: number[] = [];
    for (const [i, docId] of acknowledged) {
      const res = await svc.call('GET', `/v1/search?entity_id=crash&k=3&q=${encodeURIComponent(textOf(i))}`);
      if (!(res.body.results as Array<{ doc_id: string }>).some((r) => r.doc_id === docId)) missed.push(i);
    }
    expect(missed).toEqual([]);
    await index.settled();
    // The file the killed process checkpointed was loaded, not rebuilt from every passage.
    expect(index.approximate).toBe(true);
    expect(index.loadedFrom).toBe(covers);
  }, 240_000);
});
