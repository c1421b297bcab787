import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ownerKeys } from '../helpers/erase.js';
import { until } from '../helpers/reembed.js';
import { findOnDisk } from '../helpers/scan-data-dir.js';
import { KEYS, startTestService, type TestService } from '../helpers/service.js';
import { KEY_MAX, openStore, type Key } from '../../src/store/lmdb.js';

/**
 * `GET /v1/memory/entities?name=` (DECISIONS.md, Memory routes): the whole display name or an alias,
 * case-insensitively across Unicode cases and forms, through every write path (upsert, forget, erasure,
 * import), across restarts and for owners written before the name index existed; no name in clear on disk.
 */
const dirs: string[] = [];
const services: TestService[] = [];
afterEach(async () => {
  for (const s of services.splice(0)) await s.close().catch(() => undefined);
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function start(dataDir: string, env: Record<string, string> = {}): Promise<TestService> {
  const s = await startTestService({ dataDir, env });
  services.push(s);
  return s;
}

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'engram-names-'));
  dirs.push(dir);
  return dir;
}

async function upsert(s: TestService, owner: string, body: Record<string, unknown>) {
  const res = await s.call('POST', `/v1/memory/entities?entity_id=${owner}`, { body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

/** The ids a name lookup finds, in the list order. */
async function named(s: TestService, owner: string, name: string, extra = ''): Promise<string[]> {
  const res = await s.call('GET', `/v1/memory/entities?entity_id=${owner}&name=${encodeURIComponent(name)}${extra}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.next_cursor).toBeNull();
  return res.body.entities.map((e: { memory_entity_id: string }) => e.memory_entity_id);
}

describe('name lookup', () => {
  let svc: TestService;
  const owner = 'namer';
  beforeAll(async () => {
    svc = await startTestService();
    await upsert(svc, owner, { entity_type: 'person', memory_entity_id: 'ann', display_name: 'Ann Lee', aliases: ['Annie', 'A. Lee'] });
    await upsert(svc, owner, { entity_type: 'place', memory_entity_id: 'street', display_name: 'Hauptstraße' });
    await upsert(svc, owner, { entity_type: 'place', memory_entity_id: 'city', display_name: 'İstanbul', aliases: ['Constantinople'] });
    await upsert(svc, owner, { entity_type: 'place', memory_entity_id: 'cafe', display_name: 'Cafe\u0301 Flore' });
    await upsert(svc, owner, { entity_type: 'person', memory_entity_id: 'odysseus', display_name: 'ΟΔΥΣΣΕΥΣ' });
    await upsert(svc, owner, { entity_type: 'person', memory_entity_id: 'acme-person', display_name: 'Acme' });
    await upsert(svc, owner, { entity_type: 'org', memory_entity_id: 'acme-org', display_name: 'ACME', aliases: ['Acme Corp'] });
    await upsert(svc, owner, { entity_type: 'org', memory_entity_id: 'acme-inc', display_name: 'Acme Inc', aliases: ['acme'] });
    // Nameless nodes are in no lookup.
    await upsert(svc, owner, { entity_type: 'org', memory_entity_id: 'nameless' });
  });
  afterAll(async () => {
    await svc?.stop();
  });

  it('matches the display name or any alias, whole value, whatever the case', async () => {
    for (const name of ['Ann Lee', 'ann lee', 'ANN LEE', 'annie', 'a. lee']) expect(await named(svc, owner, name), name).toEqual(['ann']);
    for (const name of ['Ann', 'Lee', 'Ann Lee ', 'AnnLee', 'Ann  Lee', 'Anni', 'Annie Lee']) expect(await named(svc, owner, name), name).toEqual([]);
  });

  it('folds Unicode case and forms: ß and SS, Turkish İ and ı, NFC and NFD, final sigma', async () => {
    for (const name of ['HAUPTSTRASSE', 'hauptstrasse', 'Hauptstraße', 'HAUPTSTRAẞE']) expect(await named(svc, owner, name), name).toEqual(['street']);
    for (const name of ['istanbul', 'ISTANBUL', 'İSTANBUL', 'ıstanbul', 'CONSTANTINOPLE']) expect(await named(svc, owner, name), name).toEqual(['city']);
    for (const name of ['café flore', 'CAFÉ FLORE', 'Cafe\u0301 Flore']) expect(await named(svc, owner, name), name).toEqual(['cafe']);
    expect(await named(svc, owner, 'Cafe Flore')).toEqual([]);
    for (const name of ['οδυσσευς', 'Οδυσσεύσ'.normalize('NFD').replace('\u0301', ''), 'ΟΔΥΣΣΕΥΣ']) expect(await named(svc, owner, name), name).toEqual(['odysseus']);
  });

  it('combines with entity_type, and pages with limit and cursor in created_at order', async () => {
    expect(await named(svc, owner, 'acme')).toEqual(['acme-person', 'acme-org', 'acme-inc']);
    expect(await named(svc, owner, 'ACME', '&entity_type=org')).toEqual(['acme-org', 'acme-inc']);
    expect(await named(svc, owner, 'acme', '&entity_type=place')).toEqual([]);
    const seen: string[] = [];
    let cursor = '';
    for (;;) {
      const res = await svc.call('GET', `/v1/memory/entities?entity_id=${owner}&name=Acme&limit=1${cursor}`);
      expect(res.status).toBe(200);
      seen.push(...res.body.entities.map((e: { memory_entity_id: string }) => e.memory_entity_id));
      if (res.body.next_cursor === null) break;
      // The cursor binds the folded name: another spelling of the same name follows it.
      cursor = `&cursor=${encodeURIComponent(res.body.next_cursor)}`;
    }
    expect(seen).toEqual(['acme-person', 'acme-org', 'acme-inc']);
    const first = await svc.call('GET', `/v1/memory/entities?entity_id=${owner}&name=acme&limit=1`);
    const other = await svc.call('GET', `/v1/memory/entities?entity_id=${owner}&name=ACME&limit=1&cursor=${encodeURIComponent(first.body.next_cursor)}`);
    expect(other.body.entities.map((e: { memory_entity_id: string }) => e.memory_entity_id)).toEqual(['acme-org']);
    const elsewhere = await svc.call('GET', `/v1/memory/entities?entity_id=${owner}&name=Ann%20Lee&cursor=${encodeURIComponent(first.body.next_cursor)}`);
    expect([elsewhere.status, elsewhere.body.error]).toEqual([400, expect.stringMatching(/cursor was issued for other filters/)]);
  });

  it('follows updates of the display name and aliases, and forgetting', async () => {
    await upsert(svc, owner, { entity_type: 'person', memory_entity_id: 'moving', display_name: 'Old Name', aliases: ['Old Alias', 'Kept Alias'] });
    expect(await named(svc, owner, 'old name')).toEqual(['moving']);
    await upsert(svc, owner, { entity_type: 'person', memory_entity_id: 'moving', display_name: 'New Name' });
    expect(await named(svc, owner, 'old name')).toEqual([]);
    expect(await named(svc, owner, 'new name')).toEqual(['moving']);
    expect(await named(svc, owner, 'old alias')).toEqual(['moving']);
    await upsert(svc, owner, { entity_type: 'person', memory_entity_id: 'moving', aliases: ['Kept Alias', 'Fresh Alias'] });
    expect(await named(svc, owner, 'old alias')).toEqual([]);
    expect(await named(svc, owner, 'kept alias')).toEqual(['moving']);
    expect(await named(svc, owner, 'fresh alias')).toEqual(['moving']);
    // A type change keeps the name.
    await upsert(svc, owner, { entity_type: 'org', memory_entity_id: 'moving' });
    expect(await named(svc, owner, 'new name', '&entity_type=org')).toEqual(['moving']);
    expect((await svc.call('DELETE', `/v1/memory/entities/moving?entity_id=${owner}`)).status).toBe(200);
    for (const name of ['new name', 'kept alias', 'fresh alias']) expect(await named(svc, owner, name)).toEqual([]);
    // Forgetting leaves no entry of it behind.
    const left = ownerKeys(svc.deps.store, { tenant: 'acme', partition: null, entityId: owner }).filter((k) => k.at(-1) === 'moving');
    expect(left).toEqual([]);
  });

  it('keeps owners, partitions and tenants apart', async () => {
    expect(await named(svc, 'someone-else', 'ann lee')).toEqual([]);
    const globex = await svc.call('GET', `/v1/memory/entities?entity_id=${owner}&name=Ann%20Lee`, { key: KEYS.globex });
    expect(globex.body.entities).toEqual([]);
  });

  it('validates name: 1 to 1024 characters', async () => {
    for (const [query, rule] of [['&name=', /query parameter name must not be empty/], [`&name=${'x'.repeat(1025)}`, /query parameter name must be at most 1024 characters/]] as const) {
      const res = await svc.call('GET', `/v1/memory/entities?entity_id=${owner}${query}`);
      expect([res.status, res.body.code]).toEqual([400, 'invalid_input']);
      expect(res.body.error).toMatch(rule);
    }
    expect(await named(svc, owner, 'x'.repeat(1024))).toEqual([]);
  });
});

describe('the name index on disk and through the owner lifecycle', () => {
  it('survives a restart, and holds no name in clear (encryption on)', async () => {
    const dataDir = tempDir();
    const tag = randomBytes(6).toString('hex');
    const name = `Mk-Name-${tag}`;
    let s = await start(dataDir);
    await upsert(s, 'disk', { entity_type: 'person', memory_entity_id: 'p', display_name: name, aliases: [`MK-ALIAS-${tag}`] });
    expect(await named(s, 'disk', name.toUpperCase())).toEqual(['p']);
    await s.close();
    s = await start(dataDir);
    expect(await named(s, 'disk', name.toLowerCase())).toEqual(['p']);
    expect(await named(s, 'disk', `mk-alias-${tag}`)).toEqual(['p']);
    await s.close();
    expect(findOnDisk(dataDir, { tag, [`${tag} (hex)`]: Buffer.from(tag, 'hex') })).toEqual({});
  });

  it('with CONTENT_ENCRYPTION=off: finds names, and keeps no folded form of them (only the records hold the name)', async () => {
    const dataDir = tempDir();
    const tag = randomBytes(6).toString('hex').toUpperCase();
    const s = await start(dataDir, { CONTENT_ENCRYPTION: 'off' });
    await upsert(s, 'plain', { entity_type: 'person', memory_entity_id: 'p', display_name: `MK-NAME-${tag}` });
    expect(await named(s, 'plain', `mk-name-${tag.toLowerCase()}`)).toEqual(['p']);
    await s.close();
    // The record in clear holds the name as written (the scan sees it), never the lower-cased form a lookup compares.
    expect(findOnDisk(dataDir, { written: `MK-NAME-${tag}`, folded: `mk-name-${tag.toLowerCase()}` })).toEqual({ written: ['engram.mdb'] });
  });

  it('builds the index for an owner written before it existed, on its first lookup', async () => {
    const dataDir = tempDir();
    let s = await start(dataDir);
    // Sent 100 at a time (they share commits): more nodes than one page of the build.
    for (let from = 0; from < 2500; from += 100) {
      await Promise.all(
        Array.from({ length: 100 }, (_, j) => from + j).map((i) =>
          upsert(s, 'old', { entity_type: 'person', memory_entity_id: `p${i}`, display_name: `Person ${i}`, aliases: i % 2 ? [`Alias ${i % 10}`] : [] }),
        ),
      );
    }
    await s.close();
    // Writes the owner the old way: its entities without the name index and its marker.
    const store = openStore(dataDir);
    const scope: Key = ['acme', '', 'old'];
    const nameKeys = () => [...store.index.getKeys({ start: scope, end: [...scope, KEY_MAX] })].filter((k) => String((k as Key)[3]).startsWith('e_name'));
    expect(nameKeys().length).toBeGreaterThan(2500);
    await store.transaction(() => {
      for (const key of nameKeys()) store.index.remove(key);
    });
    expect(nameKeys()).toEqual([]);
    await store.close();

    s = await start(dataDir);
    // Two lookups at once share one build.
    const [one, many] = await Promise.all([named(s, 'old', 'person 2499'), named(s, 'old', 'alias 3', '&limit=1000')]);
    expect(one).toEqual(['p2499']);
    expect(many).toHaveLength(250);
    expect(await named(s, 'old', 'PERSON 0')).toEqual(['p0']);
    // Marked complete: later lookups read the index as it stands.
    expect(s.deps.graph.names.complete({ tenant: 'acme', partition: null, entityId: 'old' })).toBe(true);
    // Written after the build: kept by the writes themselves.
    await upsert(s, 'old', { entity_type: 'person', memory_entity_id: 'p0', display_name: 'Renamed' });
    expect(await named(s, 'old', 'person 0')).toEqual([]);
    expect(await named(s, 'old', 'renamed')).toEqual(['p0']);
  });

  it('forgets the names of an erased owner, and indexes an imported one', async () => {
    const s = await start(tempDir());
    await upsert(s, 'leaving', { entity_type: 'person', memory_entity_id: 'p', display_name: 'Grace Hopper', aliases: ['Amazing Grace'] });
    const exported = await s.call('GET', '/v1/memory/export?entity_id=leaving', { key: KEYS.acmeAdmin });
    expect(exported.status).toBe(200);
    const lines = (typeof exported.body === 'string' ? exported.body : `${JSON.stringify(exported.body)}\n`).trimEnd().split('\n');
    const moved = lines.map((l: string) => {
      const line = JSON.parse(l) as { record?: { entity_id?: string } };
      if (line.record?.entity_id) line.record.entity_id = 'arrived';
      return JSON.stringify(line);
    });
    const imported = await s.call('POST', '/v1/memory/import?entity_id=arrived', { key: KEYS.acmeAdmin, rawBody: moved.map((l) => `${l}\n`).join(''), headers: { 'content-type': 'application/x-ndjson' } });
    expect(imported.status, JSON.stringify(imported.body)).toBe(200);
    expect(await named(s, 'arrived', 'amazing grace')).toEqual(['p']);
    expect(await named(s, 'arrived', 'GRACE HOPPER')).toEqual(['p']);

    const erasure = await s.call('DELETE', '/v1/memory?entity_id=leaving');
    expect(erasure.status).toBe(202);
    const receipt = await until(
      () => s.call('GET', `/v1/memory/erasures/${erasure.body.receipt_id}`),
      (res) => res.body.state !== 'pending' && res.body.state !== 'running',
    );
    expect(receipt.body.state).toBe('complete');
    expect(ownerKeys(s.deps.store, { tenant: 'acme', partition: null, entityId: 'leaving' })).toEqual([]);
    expect(await named(s, 'leaving', 'grace hopper')).toEqual([]);
    // The owner starts anew: a node of another name is found, the old name is not.
    await upsert(s, 'leaving', { entity_type: 'person', memory_entity_id: 'p', display_name: 'Ada' });
    expect(await named(s, 'leaving', 'grace hopper')).toEqual([]);
    expect(await named(s, 'leaving', 'ada')).toEqual(['p']);
    expect(await named(s, 'arrived', 'grace hopper')).toEqual(['p']);
  });
});
