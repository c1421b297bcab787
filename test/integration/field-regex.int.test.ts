import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnService, type ServiceProcess } from '../helpers/process.js';

/**
 * Regex field sources run on a linear-time engine (RE2). The service runs in its own process, so a
 * pattern that stalls its event loop makes this test time out instead of freezing the test runner:
 * the per-test timeout is a hang guard, not a timing assertion.
 */
describe('regex field sources cannot stall the service', () => {
  const dir = mkdtempSync(join(tmpdir(), 'engram-regex-'));
  const KEYS = { a: 'sk_regex_tenant_a_0123456789', b: 'sk_regex_tenant_b_0123456789' };
  let service: ServiceProcess;

  beforeAll(async () => {
    const keysFile = join(dir, 'keys.json');
    writeFileSync(keysFile, JSON.stringify({ tenants: {}, keys: [{ key: KEYS.a, tenant: 'a' }, { key: KEYS.b, tenant: 'b' }] }));
    service = await spawnService({ DATA_DIR: join(dir, 'data'), API_KEYS_FILE: keysFile });
  });
  afterAll(async () => {
    service?.child.kill('SIGKILL');
    await service?.exited;
    rmSync(dir, { recursive: true, force: true });
  });

  const call = async (key: string, method: string, path: string, body?: unknown) => {
    const res = await fetch(`${service.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as any };
  };

  // Patterns a shape check let through (issue 12): on a backtracking engine, 26 a's and a '!' took 2.7 s.
  const PATTERNS = { nested: '((a+))+$', alternation: '(a|a)*$', words: '(\\w+\\s?)*$', anchored: '^(a+|b)+$' };

  it('accepts catastrophic-backtracking patterns, then writes and indexes 100 a\'s and a "!" while another tenant is served', async () => {
    const fields = Object.entries(PATTERNS).map(([name, regex]) => ({ name, type: 'string', source: { regex } }));
    expect((await call(KEYS.a, 'PUT', '/v1/schema/fields', { fields })).status).toBe(200);

    const [hostile, other] = await Promise.all([
      call(KEYS.a, 'POST', '/v1/documents?entity_id=u1', { content: `${'a'.repeat(100)}!` }),
      call(KEYS.b, 'GET', '/v1/schema/fields'),
    ]);
    expect(hostile.status).toBe(201);
    expect(other).toEqual({ status: 200, body: { fields: [] } });
    const plain = await call(KEYS.a, 'POST', '/v1/documents?entity_id=u1', { content: 'a'.repeat(100) });
    expect(plain.status).toBe(201);

    // Values as JavaScript's own engine defines them (first capture group): none can match before a '!'.
    const expected = Object.fromEntries(Object.entries(PATTERNS).map(([name, regex]) => [name, new RegExp(regex, 'u').exec('a'.repeat(100))![1]]));
    expect(expected).toEqual({ nested: 'a'.repeat(100), alternation: 'a', words: 'a'.repeat(100), anchored: 'a'.repeat(100) });
    const read = async (docId: string) => (await call(KEYS.a, 'GET', `/v1/documents/${docId}?entity_id=u1`)).body.fields;
    expect(await read(hostile.body.doc_id)).toEqual({});
    expect(await read(plain.body.doc_id)).toEqual(expected);
    const listed = (await call(KEYS.a, 'GET', '/v1/schema/fields')).body.fields;
    expect(Object.fromEntries(listed.map((f: { name: string; coverage: number }) => [f.name, f.coverage]))).toEqual({ nested: 1, alternation: 1, words: 1, anchored: 1 });
    const q = await call(KEYS.a, 'POST', '/v1/query', { filter: { field: 'alternation', op: 'exists', value: false } });
    expect(q.body.documents.map((d: { doc_id: string }) => d.doc_id)).toEqual([hostile.body.doc_id]);
  }, 60_000);
});
