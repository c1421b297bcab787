import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnService } from '../helpers/process.js';
import { startTestService } from '../helpers/service.js';

const parent = mkdtempSync(join(tmpdir(), 'engram-modes-'));
afterAll(() => rmSync(parent, { recursive: true, force: true }));

/** Every path under `dir` (itself included) with its permission bits, as `0700`-style strings. */
function modes(dir: string): Map<string, { mode: string; dir: boolean }> {
  const out = new Map<string, { mode: string; dir: boolean }>();
  const visit = (path: string): void => {
    const stat = statSync(path);
    out.set(path, { mode: (stat.mode & 0o7777).toString(8).padStart(4, '0'), dir: stat.isDirectory() });
    if (stat.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
  };
  visit(dir);
  return out;
}

describe('DATA_DIR on disk', () => {
  it('holds only owner-only directories (0700) and files (0600) after a run with documents, media, vectors, facts and Temporal', async () => {
    const dataDir = join(parent, 'fresh', 'data');
    const config = join(parent, 'temporal.yaml');
    writeFileSync(config, 'dev_server:\n  port: 0\n  ui: false\n  log_level: error\n');
    const service = await spawnService({
      DATA_DIR: dataDir,
      TEMPORAL_ENABLED: 'true',
      TEMPORAL_CONFIG: config,
      TEMPORAL_TASK_QUEUE: 'modes-test',
      // A vector index file from the fourth passage on, written back at shutdown.
      VECTOR_EXACT_MAX: '2',
    }, { until: 'temporal' });
    try {
      const auth = { authorization: `Bearer ${readFileSync(join(dataDir, 'dev-api-key'), 'utf8').trim()}`, 'content-type': 'application/json' };
      const post = async (path: string, body: unknown) => (await fetch(`${service.url}${path}`, { method: 'POST', headers: auth, body: JSON.stringify(body) })).status;
      for (let i = 0; i < 4; i++) expect(await post('/v1/documents?entity_id=u1', { content: `private note ${i}` })).toBe(201);
      const png = readFileSync(new URL('../fixtures/media/image.png', import.meta.url)).toString('base64');
      expect(await post('/v1/memory/media?entity_id=u1', { modality: 'image', content_type: 'image/png', data_base64: png, caption: 'a private picture' })).toBe(201);
      expect(await post('/v1/memory/facts?entity_id=u1', { predicate: 'city', value: 'Paris' })).toBe(201);
      expect((await fetch(`${service.url}/v1/search?entity_id=u1&q=private`, { headers: auth })).status).toBe(200);
    } finally {
      service.child.kill('SIGTERM');
      await service.exited;
    }

    const found = modes(dataDir);
    const names = [...found.keys()].map((path) => path.slice(dataDir.length + 1));
    // The walk covers what holds tenant content or secrets: LMDB, the vector index, Temporal's database, the keys.
    for (const expected of [/^engram\.mdb$/, /^engram\.mdb-lock$/, /^vectors\/\w+\.hnsw$/, /^vectors\/\w+\.json$/, /^temporal\.sqlite$/, /^dev-api-key$/, /^encryption-key$/]) {
      expect(names.some((name) => expected.test(name)), String(expected)).toBe(true);
    }
    const open = [...found].filter(([, { mode, dir }]) => mode !== (dir ? '0700' : '0600'));
    expect(open.map(([path, { mode }]) => `${mode} ${path}`)).toEqual([]);
  }, 120_000);

  it('closes an existing DATA_DIR that others may enter, and the store files an earlier version left readable', async () => {
    const dataDir = join(parent, 'upgraded');
    const first = await startTestService({ dataDir });
    await first.stop();
    chmodSync(dataDir, 0o755);
    chmodSync(join(dataDir, 'engram.mdb'), 0o644);

    const second = await startTestService({ dataDir });
    try {
      expect(modes(dataDir).get(dataDir)!.mode).toBe('0700');
      expect(modes(dataDir).get(join(dataDir, 'engram.mdb'))!.mode).toBe('0600');
    } finally {
      await second.stop();
    }
  });
});
