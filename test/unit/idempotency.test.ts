import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { IDEMPOTENCY_KEY_RULE, judgeRepeat } from '../../src/domain/idempotency.js';
import type { Scope } from '../../src/domain/scope.js';
import { assertPostsDeclared, idempotentWrite, postKind, readOnlyPost, requestHash } from '../../src/http/idempotency.js';
import { createRouter } from '../../src/http/router.js';
import { IdempotencyKeySchema } from '../../src/http/schemas/headers.js';
import { loadMasterKey } from '../../src/store/blobs.js';
import { IdempotencyRecords, type KeptResponse } from '../../src/store/idempotency.js';
import { openStore, type Store } from '../../src/store/lmdb.js';

describe('the Idempotency-Key rules', () => {
  it('takes 1 to 255 printable ASCII characters and nothing else', () => {
    for (const good of ['a', ' spaced key ', '~!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}', 'x'.repeat(255), '550e8400-e29b-41d4-a716-446655440000']) {
      expect(IdempotencyKeySchema.safeParse(good).success, good).toBe(true);
    }
    for (const bad of ['', 'x'.repeat(256), 'tab\t', 'new\nline', 'caf\u00e9', 'nul\u0000', 'del\u007f']) {
      const result = IdempotencyKeySchema.safeParse(bad);
      expect(result.success, JSON.stringify(bad)).toBe(false);
      expect(result.error?.issues.map((i) => i.message)).toEqual([IDEMPOTENCY_KEY_RULE]);
    }
  });

  it('replays the same request, refuses another one, and refuses any while the first runs', () => {
    expect(judgeRepeat(false, undefined, 'f1')).toEqual({ kind: 'first' });
    expect(judgeRepeat(false, 'f1', 'f1')).toEqual({ kind: 'replay' });
    expect(judgeRepeat(false, 'f1', 'f2')).toMatchObject({ kind: 'conflict', message: expect.stringContaining('another request') });
    expect(judgeRepeat(true, undefined, 'f1')).toMatchObject({ kind: 'conflict', message: expect.stringContaining('still in progress') });
  });

  it('fingerprints method, path, query and body so that no two requests share one by moving bytes between them', () => {
    const hash = (method: string, path: string, querystring: string, body: string) => requestHash({ method, path, querystring }).update(body).digest('hex');
    const base = hash('POST', '/v1/memory/facts', 'entity_id=a', '{"x":1}');
    expect(hash('POST', '/v1/memory/facts', 'entity_id=a', '{"x":1}')).toBe(base);
    for (const other of [
      hash('PUT', '/v1/memory/facts', 'entity_id=a', '{"x":1}'),
      hash('POST', '/v1/memory/entities', 'entity_id=a', '{"x":1}'),
      hash('POST', '/v1/memory/facts', 'entity_id=b', '{"x":1}'),
      hash('POST', '/v1/memory/facts', 'entity_id=a&partition=p', '{"x":1}'),
      hash('POST', '/v1/memory/facts', 'entity_id=a', '{"x": 1}'),
      hash('POST', '/v1/memory/facts', 'entity_id=a{"x":1}', ''),
    ]) {
      expect(other).not.toBe(base);
    }
  });

  it('fails the start when a POST route declares neither idempotentWrite nor readOnlyPost', () => {
    const deps = {} as Parameters<typeof idempotentWrite>[0];
    const router = createRouter();
    router.post('/writes', idempotentWrite(deps, { jsonLimit: 10 }), (ctx) => (ctx.body = {}));
    router.post('/reads', readOnlyPost, (ctx) => (ctx.body = {}));
    router.get('/gets', (ctx) => (ctx.body = {}));
    expect(() => assertPostsDeclared(router)).not.toThrow();
    expect(router.stack.map(postKind)).toEqual(['write', 'read', undefined]);
    router.post('/forgot', (ctx) => (ctx.body = {}));
    expect(() => assertPostsDeclared(router)).toThrow('POST /forgot must start with idempotentWrite (it writes) or readOnlyPost (it only reads)');
  });
});

describe('IdempotencyRecords (LMDB database idempotency)', () => {
  const owner: Scope = { tenant: 'acme', partition: null, entityId: 'user-1' };
  const alice = { tenant: 'acme', principal: 'alice' };
  const response: KeptResponse = { fingerprint: 'f1', status: 201, headers: [['content-type', 'application/json; charset=utf-8']], body: Buffer.from('{"value":"secret-marker"}') };
  const dirs: string[] = [];
  const stores: Store[] = [];
  const open = (encrypt = true) => {
    const dir = mkdtempSync(join(tmpdir(), 'engram-idem-'));
    dirs.push(dir);
    const store = openStore(dir, 'full', { masterKey: loadMasterKey(undefined, dir), encrypt });
    stores.push(store);
    return { store, records: new IdempotencyRecords(store) };
  };

  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('finds the kept answer for its holder and key only, until it expires', async () => {
    const { records } = open();
    await records.keep(alice, 'k', owner, response, 1000, 2000);
    expect(records.find(alice, 'k', 1999)).toEqual({ owner, response });
    expect(records.find(alice, 'k', 2000)).toBeUndefined();
    expect(records.find(alice, 'other', 1000)).toBeUndefined();
    expect(records.find({ tenant: 'acme', principal: 'bob' }, 'k', 1000)).toBeUndefined();
    expect(records.find({ tenant: 'globex', principal: 'alice' }, 'k', 1000)).toBeUndefined();
  });

  it('seals the answer under the owner data key: no text in clear, nothing readable once the key is destroyed', async () => {
    const { store, records } = open();
    await records.keep(alice, 'k', owner, response, 1000, 2000);
    const raw = [...store.idempotency.getKeys({})].map((k) => store.idempotency.getBinary(k)!);
    expect(raw.filter((bytes) => bytes.includes('secret-marker'))).toEqual([]);
    await store.keys.destroy(owner);
    expect(records.find(alice, 'k', 1000)).toBeUndefined();
  });

  it('keeps the answer in clear with CONTENT_ENCRYPTION=off, as the content records are', async () => {
    const { store, records } = open(false);
    await records.keep(alice, 'k', owner, response, 1000, 2000);
    const raw = [...store.idempotency.getKeys({})].map((k) => store.idempotency.getBinary(k)!);
    expect(raw.filter((bytes) => bytes.includes('secret-marker'))).toHaveLength(1);
    expect(records.find(alice, 'k', 1000)?.response).toEqual(response);
  });

  it('stores the key itself nowhere, only its digest', async () => {
    const { store, records } = open();
    await records.keep(alice, 'my-secretive-key', owner, response, 1000, 2000);
    expect(JSON.stringify([...store.idempotency.getKeys({})])).not.toContain('my-secretive-key');
  });

  it('sweeps expired keys in bounded steps, and a key used again after expiry replaces its old answer', async () => {
    const { store, records } = open();
    for (let i = 0; i < 5; i++) await records.keep(alice, `k${i}`, owner, response, 1000, 2000 + i);
    expect(await records.sweep(2002, 2)).toBe(2);
    expect(await records.sweep(2002, 10)).toBe(1);
    expect(records.find(alice, 'k3', 2002)).toBeDefined();
    expect([...store.idempotency.getKeys({})]).toHaveLength(2 * 3);
    await records.keep(alice, 'k3', { ...owner, entityId: 'user-2' }, { ...response, fingerprint: 'f2' }, 5000, 9000);
    expect(records.find(alice, 'k3', 5000)).toMatchObject({ owner: { entityId: 'user-2' }, response: { fingerprint: 'f2' } });
    // k4 expired and was swept by that keep; k3's first answer was replaced: only k3's new entries are left.
    expect([...store.idempotency.getKeys({})]).toHaveLength(3);
  });
});
