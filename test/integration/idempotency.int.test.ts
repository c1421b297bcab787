import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { IDEMPOTENCY_TTL_MS } from '../../src/domain/idempotency.js';
import type { Key } from '../../src/store/lmdb.js';
import { ownerKeys, ownerQuery } from '../helpers/erase.js';
import { until } from '../helpers/reembed.js';
import { KEYS, ManualClock, startTestService, type TestService } from '../helpers/service.js';

const FACTS = `/v1/memory/facts?${ownerQuery('user-1')}`;
const fact = (value: string) => ({ predicate: 'likes', value, cardinality: 'multi' });
const idem = (key: string) => ({ 'idempotency-key': key });
const PNG = () => readFileSync(new URL('../fixtures/media/image.png', import.meta.url)).toString('base64');

/** Every entry of the `idempotency` database: the kept answers, their lookups and expiries. */
const keptEntries = (svc: TestService): Key[] => [...svc.deps.store.idempotency.getKeys({})].map((k) => k as Key);

/** An export of an owner with an entity and a fact: NDJSON of several lines, to import. */
async function exportOfOwner(svc: TestService): Promise<string> {
  await svc.call('POST', `/v1/memory/entities?${ownerQuery('user-1')}`, { body: { entity_type: 'person', memory_entity_id: 'ann' } });
  await svc.call('POST', FACTS, { body: fact('tea') });
  const text = (await svc.call('GET', `/v1/memory/export?${ownerQuery('user-1')}`)).body as string;
  expect(text.split('\n').filter(Boolean)).toHaveLength(2);
  return text;
}

describe('Idempotency-Key on the POSTs that write', () => {
  let svc: TestService;
  const clock = new ManualClock(Date.UTC(2026, 0, 10));

  afterEach(async () => {
    await svc?.stop();
  });

  const listFacts = async (query = ownerQuery('user-1'), key: string = KEYS.acme) =>
    ((await svc.call('GET', `/v1/memory/facts?${query}&predicate=likes`, { key })).body as { facts: Array<{ value: string }> }).facts;

  it('applies a write sent twice with one key once, and answers the repeat with the first answer, replayed', async () => {
    svc = await startTestService({ clock });
    const first = await svc.call('POST', FACTS, { body: fact('tea'), headers: idem('k-1') });
    const again = await svc.call('POST', FACTS, { body: fact('tea'), headers: idem('k-1') });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('content-type')).toBe(first.headers.get('content-type'));
    expect(again.body).toEqual(first.body);
    expect(await listFacts()).toHaveLength(1);
    // Without a key, the same body is a second write.
    expect((await svc.call('POST', FACTS, { body: fact('tea') })).status).toBe(201);
    expect(await listFacts()).toHaveLength(2);
  });

  it('refuses the key with another body, another query or another path: 409 conflict, nothing written', async () => {
    svc = await startTestService({ clock });
    expect((await svc.call('POST', FACTS, { body: fact('tea'), headers: idem('k-2') })).status).toBe(201);
    const tries = [
      await svc.call('POST', FACTS, { body: fact('coffee'), headers: idem('k-2') }),
      await svc.call('POST', FACTS, { rawBody: `${JSON.stringify(fact('tea'))} `, headers: idem('k-2') }),
      await svc.call('POST', `/v1/memory/facts?${ownerQuery('user-2')}`, { body: fact('tea'), headers: idem('k-2') }),
      await svc.call('POST', `${FACTS}&partition=p`, { body: fact('tea'), headers: idem('k-2') }),
      await svc.call('POST', `/v1/memory/entities?${ownerQuery('user-1')}`, { body: { entity_type: 'person' }, headers: idem('k-2') }),
    ];
    for (const res of tries) {
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ code: 'conflict', error: expect.stringContaining('Idempotency-Key was used for another request') });
    }
    expect(await listFacts()).toHaveLength(1);
    expect(await listFacts(ownerQuery('user-2'))).toHaveLength(0);
    expect((await svc.call('GET', `/v1/memory/entities?${ownerQuery('user-1')}`)).body.entities).toHaveLength(0);
  });

  it('keeps keys per tenant and principal: the same key from another principal or tenant is its own', async () => {
    svc = await startTestService({ clock });
    const mine = await svc.call('POST', FACTS, { body: fact('tea'), headers: idem('shared') });
    const operator = await svc.call('POST', FACTS, { key: KEYS.acmeAdmin, body: fact('tea'), headers: idem('shared') });
    const otherTenant = await svc.call('POST', FACTS, { key: KEYS.globex, body: fact('tea'), headers: idem('shared') });
    for (const res of [mine, operator, otherTenant]) {
      expect(res.status).toBe(201);
      expect(res.headers.get('idempotent-replayed')).toBeNull();
    }
    expect(operator.body.fact_id).not.toBe(mine.body.fact_id);
    expect(await listFacts()).toHaveLength(2);
    expect(await listFacts(ownerQuery('user-1'), KEYS.globex)).toHaveLength(1);
  });

  it('runs concurrent duplicates once: the others are refused as in progress or get the replay', async () => {
    svc = await startTestService({ clock });
    const answers = await Promise.all(Array.from({ length: 6 }, () => svc.call('POST', FACTS, { body: fact('tea'), headers: idem('k-race') })));
    expect(await listFacts()).toHaveLength(1);
    const applied = answers.filter((a) => a.status === 201 && a.headers.get('idempotent-replayed') === null);
    expect(applied).toHaveLength(1);
    for (const a of answers) {
      if (a.status === 409) expect(a.body.error).toContain('still in progress');
      else expect(a).toMatchObject({ status: 201, body: applied[0]!.body });
    }
  });

  it('keeps nothing of a failed request: the same key with a corrected body is applied, then replayed', async () => {
    svc = await startTestService({ clock });
    const bad = await svc.call('POST', FACTS, { body: { predicate: 'likes' }, headers: idem('k-fix') });
    expect(bad.status).toBe(400);
    const fixed = await svc.call('POST', FACTS, { body: fact('tea'), headers: idem('k-fix') });
    expect(fixed.status).toBe(201);
    expect(fixed.headers.get('idempotent-replayed')).toBeNull();
    const again = await svc.call('POST', FACTS, { body: fact('tea'), headers: idem('k-fix') });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await listFacts()).toHaveLength(1);
  });

  it('replays after a restart of the service', async () => {
    svc = await startTestService({ clock });
    const { dataDir } = svc;
    const first = await svc.call('POST', FACTS, { body: fact('tea'), headers: idem('k-restart') });
    await svc.close();
    svc = await startTestService({ clock, dataDir });
    const again = await svc.call('POST', FACTS, { body: fact('tea'), headers: idem('k-restart') });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await listFacts()).toHaveLength(1);
  });

  it('frees a key 24 hours after its first answer, and the next kept answer sweeps the expired ones away', async () => {
    const moving = new ManualClock(Date.UTC(2026, 0, 10));
    svc = await startTestService({ clock: moving });
    await svc.call('POST', FACTS, { body: fact('tea'), headers: idem('k-day') });
    moving.advance(IDEMPOTENCY_TTL_MS - 1);
    expect((await svc.call('POST', FACTS, { body: fact('coffee'), headers: idem('k-day') })).status).toBe(409);
    moving.advance(1);
    const fresh = await svc.call('POST', FACTS, { body: fact('coffee'), headers: idem('k-day') });
    expect(fresh.status).toBe(201);
    expect(fresh.headers.get('idempotent-replayed')).toBeNull();
    const entries = keptEntries(svc).length;
    moving.advance(IDEMPOTENCY_TTL_MS);
    await svc.call('POST', FACTS, { body: fact('water'), headers: idem('k-other') });
    // k-day's entries went with k-other's keeping; k-other's own are there.
    expect(keptEntries(svc)).toHaveLength(entries);
    expect((await svc.call('POST', FACTS, { body: fact('juice'), headers: idem('k-day') })).status).toBe(201);
    expect((await listFacts()).map((f) => f.value).sort()).toEqual(['coffee', 'juice', 'tea', 'water']);
  });

  it('refuses a key that is not 1 to 255 printable characters: 400 naming the header and its rule, never the value', async () => {
    svc = await startTestService({ clock });
    for (const value of ['', 'x'.repeat(256), 'tab\there', 'caf\u00e9']) {
      const res = await svc.call('POST', FACTS, { body: fact('tea'), headers: idem(value) });
      expect(res.status, JSON.stringify(value)).toBe(400);
      expect(res.body.error).toBe('header Idempotency-Key must be 1 to 255 printable ASCII characters (space to ~)');
    }
    expect((await svc.call('POST', FACTS, { body: fact('tea'), headers: idem('x'.repeat(255)) })).status).toBe(201);
    expect(await listFacts()).toHaveLength(1);
  });

  it('refuses the header given twice (fetch would join the values; a raw request sends both)', async () => {
    const sock = await startTestService({ clock, socket: true });
    svc = sock;
    const body = JSON.stringify(fact('tea'));
    const { port } = new URL(sock.url);
    const head = [`POST ${FACTS} HTTP/1.1`, `Host: 127.0.0.1:${port}`, `Authorization: Bearer ${KEYS.acme}`, 'Content-Type: application/json', `Content-Length: ${body.length}`, 'Idempotency-Key: a', 'Idempotency-Key: b', 'Connection: close'];
    const answer = await new Promise<string>((resolve, reject) => {
      let text = '';
      const socket = connect(Number(port), '127.0.0.1', () => socket.end(`${head.join('\r\n')}\r\n\r\n${body}`));
      socket.on('data', (chunk) => (text += String(chunk)));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer).toContain('header Idempotency-Key must be given once');
    expect(await listFacts()).toHaveLength(0);
  });

  it('ignores the header on the POSTs that only read', async () => {
    svc = await startTestService({ clock });
    await svc.call('POST', `/v1/documents?${ownerQuery('user-1')}`, { body: { content: 'orchids need water' } });
    for (const body of [{ queries: [{ q: 'orchids' }] }, { queries: [{ q: 'water' }, { q: 'orchids' }] }]) {
      const res = await svc.call('POST', `/v1/search/batch?${ownerQuery('user-1')}`, { body, headers: idem('\t bad but ignored') });
      expect(res.status).toBe(200);
      expect(res.body.results).toHaveLength(body.queries.length);
      expect(res.headers.get('idempotent-replayed')).toBeNull();
    }
    expect(keptEntries(svc)).toEqual([]);
  });

  it('replays a media upload and the documents batch, bodies of their own limits', async () => {
    svc = await startTestService({ clock });
    const q = ownerQuery('user-1');
    const media = { modality: 'image', content_type: 'image/png', data_base64: PNG(), caption: 'a gradient' };
    const up = await svc.call('POST', `/v1/memory/media?${q}`, { body: media, headers: idem('k-media') });
    const upAgain = await svc.call('POST', `/v1/memory/media?${q}`, { body: media, headers: idem('k-media') });
    expect(up.status).toBe(201);
    expect(upAgain).toMatchObject({ status: 201, body: up.body });
    const batch = { documents: Array.from({ length: 3 }, (_, i) => ({ content: `note ${i} ${'x'.repeat(1000)}` })) };
    const made = await svc.call('POST', `/v1/documents/batch?${q}`, { body: batch, headers: idem('k-batch') });
    const madeAgain = await svc.call('POST', `/v1/documents/batch?${q}`, { body: batch, headers: idem('k-batch') });
    expect(madeAgain).toMatchObject({ status: 201, body: made.body });
    expect(madeAgain.headers.get('idempotent-replayed')).toBe('true');
    expect((await svc.call('GET', `/v1/documents?${q}`)).body.count).toBe(4);
  });

  it('replays an import, hashing its streamed body, and refuses another body under the key', async () => {
    svc = await startTestService({ clock });
    const exported = await exportOfOwner(svc);
    const into = `/v1/memory/import?${ownerQuery('copy')}`;
    const ndjson = { 'content-type': 'application/x-ndjson', ...idem('k-import') };
    const first = await svc.call('POST', into, { rawBody: exported, headers: ndjson });
    expect(first).toMatchObject({ status: 200, body: { imported: { facts: 1 } } });
    const again = await svc.call('POST', into, { rawBody: exported, headers: ndjson });
    expect(again).toMatchObject({ status: 200, body: first.body });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const other = await svc.call('POST', into, { rawBody: `${exported}\n`, headers: ndjson });
    expect(other).toMatchObject({ status: 409, body: { error: expect.stringContaining('Idempotency-Key was used for another request') } });
  });

  it('refuses a repeat while the first is still being answered (an import whose body is still arriving)', async () => {
    const sock = await startTestService({ clock, socket: true });
    svc = sock;
    const exported = await exportOfOwner(svc);
    let push!: (text: string | null) => void;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        push = (text) => (text === null ? controller.close() : controller.enqueue(new TextEncoder().encode(text)));
      },
    });
    const headers = { authorization: `Bearer ${KEYS.acme}`, 'content-type': 'application/x-ndjson', ...idem('k-slow') };
    const url = `${sock.url}/v1/memory/import?${ownerQuery('copy')}`;
    const slow = fetch(url, { method: 'POST', headers, body, duplex: 'half' } as RequestInit);
    const lines = exported.split('\n');
    push(`${lines[0]}\n`);
    // The first request holds the owner for its import once it has started reading: then it is running.
    await until(
      async () => svc.deps.holds?.holdOf({ tenant: 'acme', partition: null, entityId: 'copy' }),
      (hold) => hold !== undefined,
    );
    const meanwhile = await svc.call('POST', `/v1/memory/import?${ownerQuery('copy')}`, { rawBody: exported, headers: { 'content-type': 'application/x-ndjson', ...idem('k-slow') } });
    expect(meanwhile).toMatchObject({ status: 409, body: { error: expect.stringContaining('still in progress') } });
    push(lines.slice(1).join('\n'));
    push(null);
    const done = await slow;
    expect(done.status).toBe(200);
    const report = await done.json();
    const after = await svc.call('POST', `/v1/memory/import?${ownerQuery('copy')}`, { rawBody: exported, headers: { 'content-type': 'application/x-ndjson', ...idem('k-slow') } });
    expect(after).toMatchObject({ status: 200, body: report });
    expect(after.headers.get('idempotent-replayed')).toBe('true');
  });

  it('does not replay the answer of an owner being erased, and removes it with the owner', async () => {
    svc = await startTestService({ clock });
    const first = await svc.call('POST', FACTS, { body: fact('secret tea'), headers: idem('k-erase') });
    expect(first.status).toBe(201);
    const scope = { tenant: 'acme', partition: null, entityId: 'user-1' };
    // Sealed under the owner's data key: the stored answer holds none of its text in clear.
    const stored = keptEntries(svc).map((k) => svc.deps.store.idempotency.getBinary(k)!);
    expect(stored).toHaveLength(3);
    expect(stored.filter((bytes) => bytes.includes('secret tea'))).toEqual([]);

    // Held (here by an import's guard, as an erasure holds it): the repeat is the route's 409, not the kept answer.
    await svc.deps.importGuard.begin(scope);
    const held = await svc.call('POST', FACTS, { body: fact('secret tea'), headers: idem('k-erase') });
    expect(held.status).toBe(409);
    expect(JSON.stringify(held.body)).not.toContain('secret tea');
    await svc.deps.importGuard.release(scope);

    const erasure = await svc.call('DELETE', `/v1/memory?${ownerQuery('user-1')}`);
    const id = erasure.body.receipt_id as string;
    await until(
      () => svc.call('GET', `/v1/memory/erasures/${id}`),
      (res) => res.body.state === 'complete',
    );
    expect(ownerKeys(svc.deps.store, scope)).toEqual([]);
    expect(keptEntries(svc)).toEqual([]);
    // The key is free: the same request is a new write to a new, empty owner.
    const after = await svc.call('POST', FACTS, { body: fact('secret tea'), headers: idem('k-erase') });
    expect(after.status).toBe(201);
    expect(after.headers.get('idempotent-replayed')).toBeNull();
    expect(after.body.fact_id).not.toBe(first.body.fact_id);
  });
});
