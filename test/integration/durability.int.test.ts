import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnService } from '../helpers/process.js';

const dataDir = mkdtempSync(join(tmpdir(), 'engram-durable-'));
const keysFile = join(dataDir, '..', `${dataDir.split('/').pop()}-keys.json`);
const KEY = 'sk_durable_0123456789abcdef';
writeFileSync(keysFile, JSON.stringify({ tenants: {}, keys: [{ key: KEY, tenant: 'durable' }] }));
const env = { DATA_DIR: dataDir, API_KEYS_FILE: keysFile };

afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(keysFile, { force: true });
});

const post = (url: string, path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

describe('durability', () => {
  it('every acknowledged fact survives SIGKILL right after the responses', async () => {
    const first = await spawnService(env);
    const acknowledged: string[] = [];
    // 400 concurrent assertions over 8 owners; the process is killed the moment the last response arrives.
    await Promise.all(
      Array.from({ length: 400 }, async (_, i) => {
        const res = await post(first.url, `/v1/memory/facts?entity_id=owner-${i % 8}`, { predicate: `p${i}`, value: i, cardinality: 'multi' });
        if (res.status === 201) acknowledged.push(((await res.json()) as { fact_id: string }).fact_id);
      }),
    );
    first.child.kill('SIGKILL');
    const [, signal] = await first.exited;
    expect(signal).toBe('SIGKILL');
    expect(acknowledged).toHaveLength(400);

    const second = await spawnService(env);
    try {
      const found = new Set<string>();
      for (let owner = 0; owner < 8; owner++) {
        const res = await fetch(`${second.url}/v1/memory/facts?entity_id=owner-${owner}&limit=1000`, { headers: { authorization: `Bearer ${KEY}` } });
        for (const f of ((await res.json()) as { facts: Array<{ fact_id: string }> }).facts) found.add(f.fact_id);
      }
      expect(acknowledged.filter((id) => !found.has(id))).toEqual([]);
    } finally {
      second.child.kill('SIGTERM');
      await second.exited;
    }
  });

  it('every answer acknowledged to an Idempotency-Key survives SIGKILL: the retries after the restart are replays', async () => {
    const send = (url: string, i: number) => post(url, `/v1/memory/facts?entity_id=idem-${i % 4}`, { predicate: 'retried', value: i, cardinality: 'multi' }, { 'idempotency-key': `write-${i}` });
    const first = await spawnService(env);
    // The process is killed the moment the last answer arrives.
    const answers = await Promise.all(Array.from({ length: 100 }, async (_, i) => send(first.url, i).then(async (res) => ({ status: res.status, text: await res.text() }))));
    expect(answers.filter((a) => a.status !== 201)).toEqual([]);
    first.child.kill('SIGKILL');
    await first.exited;

    const second = await spawnService(env);
    try {
      const retried = await Promise.all(Array.from({ length: 100 }, async (_, i) => send(second.url, i).then(async (res) => ({ status: res.status, replayed: res.headers.get('idempotent-replayed'), text: await res.text() }))));
      expect(retried).toEqual(answers.map((a) => ({ ...a, replayed: 'true' })));
      let count = 0;
      for (let owner = 0; owner < 4; owner++) {
        const res = await fetch(`${second.url}/v1/memory/facts?entity_id=idem-${owner}&predicate=retried&limit=1000`, { headers: { authorization: `Bearer ${KEY}` } });
        count += ((await res.json()) as { count: number }).count;
      }
      expect(count).toBe(100);
    } finally {
      second.child.kill('SIGTERM');
      await second.exited;
    }
  });
});
