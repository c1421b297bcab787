import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnService, type ServiceProcess } from '../helpers/process.js';
import { smallDisk } from '../helpers/small-disk.js';

const disk = await smallDisk(16);
const skip = 'skip' in disk ? disk.skip : null;
if (skip) process.stderr.write(`disk-full.int.test.ts skipped: ${skip}\n`);

const KEY = 'sk_disk_full_0123456789abcdef';
const keysDir = mkdtempSync(join(tmpdir(), 'engram-disk-keys-'));
const keysFile = join(keysDir, 'keys.json');
writeFileSync(keysFile, JSON.stringify({ tenants: {}, keys: [{ key: KEY, tenant: 'disk' }] }));

afterAll(async () => {
  if (!('skip' in disk)) await disk.close();
  rmSync(keysDir, { recursive: true, force: true });
});

const OWNER = 'entity_id=u1';
/** Larger than the free pages a few small commits leave in LMDB: it needs the file to grow. */
const BIG = 'the big document '.repeat(12_000);

async function call(service: ServiceProcess, method: string, path: string, body?: unknown) {
  const res = await fetch(`${service.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${KEY}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}

/** A refusal for a full disk: 503 `unavailable`, with the error body and a Retry-After to come back after. */
function expectDiskFull(res: { status: number; headers: Headers; body: any }): void {
  expect(res.status).toBe(503);
  expect(res.body.code).toBe('unavailable');
  expect(res.body.error).toMatch(/out of disk space/);
  expect(res.body.request_id).toEqual(expect.any(String));
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
}

describe.skipIf(skip !== null)('a full DATA_DIR', () => {
  it('refuses only the writes it cannot store (503, Retry-After), keeps reads and the process, takes writes once space returns, and loses nothing acknowledged', async () => {
    if ('skip' in disk) return;
    const env = { DATA_DIR: join(disk.dir, 'data'), API_KEYS_FILE: keysFile };
    const docs: string[] = [];
    const facts: string[] = [];
    let service = await spawnService(env, { prefix: disk.prefix });
    try {
      for (let i = 0; i < 3; i++) {
        const res = await call(service, 'POST', `/v1/documents?${OWNER}`, { content: `a note about gardening number ${i}` });
        expect(res.status).toBe(201);
        docs.push(res.body.doc_id);
      }
      for (let i = 0; i < 3; i++) {
        const res = await call(service, 'POST', `/v1/memory/facts?${OWNER}`, { predicate: `before${i}`, value: i, cardinality: 'multi' });
        expect(res.status).toBe(201);
        facts.push(res.body.fact_id);
      }

      disk.fill();
      expectDiskFull(await call(service, 'POST', `/v1/documents?${OWNER}`, { content: BIG }));
      // Small fact commits may still fit in pages LMDB freed earlier: each one answered 201 is stored.
      let refused: Awaited<ReturnType<typeof call>> | undefined;
      for (let i = 0; i < 900 && !refused; i++) {
        const res = await call(service, 'POST', `/v1/memory/facts?${OWNER}`, { predicate: `full${i}`, value: 'x'.repeat(400), cardinality: 'multi' });
        if (res.status === 201) facts.push(res.body.fact_id);
        else refused = res;
      }
      expectDiskFull(refused!);
      // The tenant's first query builds its field indexes: that commit is refused too, and leaves no trace.
      expectDiskFull(await call(service, 'POST', '/v1/query', { limit: 1000 }));

      expect(service.child.exitCode).toBeNull();
      expect(((await (await fetch(`${service.url}/status`)).json()) as { store: { ready: boolean } }).store.ready).toBe(true);
      for (const id of docs) expect((await call(service, 'GET', `/v1/documents/${id}?${OWNER}`)).status).toBe(200);
      const search = await call(service, 'GET', `/v1/search?${OWNER}&q=gardening`);
      expect(search.status).toBe(200);
      expect(search.body.results.length).toBeGreaterThan(0);
      await expectFacts(service, facts);

      disk.free();
      const stored = await call(service, 'POST', `/v1/documents?${OWNER}`, { content: BIG });
      expect(stored.status).toBe(201);
      docs.push(stored.body.doc_id);
      const fact = await call(service, 'POST', `/v1/memory/facts?${OWNER}`, { predicate: 'after', value: 1 });
      expect(fact.status).toBe(201);
      facts.push(fact.body.fact_id);
      const query = await call(service, 'POST', '/v1/query', { limit: 1000 });
      expect(query.status).toBe(200);
      expect(query.body.total).toBe(docs.length);
    } finally {
      service.child.kill('SIGTERM');
      await service.exited;
    }

    service = await spawnService(env, { prefix: disk.prefix });
    try {
      for (const id of docs) expect((await call(service, 'GET', `/v1/documents/${id}?${OWNER}`)).status).toBe(200);
      await expectFacts(service, facts);
    } finally {
      service.child.kill('SIGTERM');
      await service.exited;
    }
  }, 120_000);
});

/** The owner's facts are exactly the acknowledged ones: none lost, none that was refused. */
async function expectFacts(service: ServiceProcess, acknowledged: string[]): Promise<void> {
  const res = await call(service, 'GET', `/v1/memory/facts?${OWNER}&limit=1000`);
  expect(res.status).toBe(200);
  expect((res.body.facts as Array<{ fact_id: string }>).map((f) => f.fact_id).sort()).toEqual([...acknowledged].sort());
}
