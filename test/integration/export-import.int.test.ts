import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODEL_ID, until } from '../helpers/reembed.js';
import { KEYS, startTestService, type TestService } from '../helpers/service.js';

/**
 * Export and import of an owner (README, Export and import): the round trip keeps every record byte for
 * byte, history, soft-deleted and private documents, media bytes and vectors included; an import goes only
 * into an empty owner, a failed one leaves it empty, and a node with another embedder re-embeds.
 */
const png = readFileSync(new URL('../fixtures/media/image.png', import.meta.url));
const FACTS = 10_000;
const NDJSON = { 'content-type': 'application/x-ndjson' };

let svc: TestService;
/** The admin export of the source owner, line by line. */
let exported: string[];

const exportOf = async (s: TestService, entity: string, key: string = KEYS.acmeAdmin): Promise<string[]> => {
  const res = await s.call('GET', `/v1/memory/export?entity_id=${entity}`, { key });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
  // The helper parses a body of one JSON line, and leaves an empty one undefined.
  if (res.body === undefined) return [];
  const text = typeof res.body === 'string' ? res.body : `${JSON.stringify(res.body)}\n`;
  return text.slice(0, -1).split('\n');
};

const importInto = (s: TestService, entity: string, lines: string[], key: string = KEYS.acmeAdmin) =>
  s.call('POST', `/v1/memory/import?entity_id=${entity}`, { key, rawBody: lines.map((l) => `${l}\n`).join(''), headers: NDJSON });

/** The lines as another owner holds them: the same records, with that owner's `entity_id`. */
const movedTo = (lines: string[], entity: string): string[] =>
  lines.map((l) => {
    const line = JSON.parse(l) as { record: { entity_id: string } };
    line.record.entity_id = entity;
    return JSON.stringify(line);
  });

const typesOf = (lines: string[]) => lines.map((l) => (JSON.parse(l) as { type: string }).type);

async function post(path: string, body: unknown, key: string = KEYS.acme) {
  const res = await svc.call('POST', path, { body, key });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

beforeAll(async () => {
  svc = await startTestService();
  const at = '/v1/memory';
  const q = '?entity_id=src';
  const ada = await post(`${at}/entities${q}`, { entity_type: 'person', display_name: 'Ada', memory_entity_id: 'ada' });
  await post(`${at}/entities${q}`, { entity_type: 'person', display_name: 'Ada Lovelace', memory_entity_id: 'ada', aliases: ['Countess'] });
  await post(`${at}/entities${q}`, { entity_type: 'org', display_name: 'Analytical Engine Co', memory_entity_id: 'aec' });
  const job = await post(`${at}/relationships${q}`, { from_entity_id: 'ada', to_entity_id: 'aec', relationship_type: 'works_at' });
  expect((await svc.call('DELETE', `${at}/relationships/${job.relationship_id}${q}`)).status).toBe(200);
  await post(`${at}/relationships${q}`, { from_entity_id: 'ada', to_entity_id: 'aec', relationship_type: 'advises', valid_from: '2026-01-01T00:00:00Z' });
  // History: a superseded city, a retracted fact, an entity fact.
  await post(`${at}/facts${q}`, { predicate: 'city', value: 'London', observed_at: '2026-01-01T00:00:00Z' });
  await post(`${at}/facts${q}`, { predicate: 'city', value: 'Paris', observed_at: '2026-02-01T00:00:00Z' });
  const pet = await post(`${at}/facts${q}`, { predicate: 'pet', value: 'cat', cardinality: 'multi' });
  expect((await svc.call('DELETE', `${at}/facts/${pet.fact_id}${q}`)).status).toBe(200);
  await post(`${at}/facts${q}`, { predicate: 'born', value: 1815, subject_type: 'entity', subject_id: ada.memory_entity_id });
  for (let i = 0; i < FACTS; i += 500) {
    await Promise.all(Array.from({ length: 500 }, (_, j) => post(`${at}/facts${q}`, { predicate: `note_${i + j}`, value: i + j })));
  }
  await post(`/v1/documents${q}`, { content: 'Green tea every morning at seven.', title: 'Habits', metadata: { priority: 2 }, tags: ['health'] });
  const gone = await post(`/v1/documents${q}`, { content: 'An old address on Baker Street.' });
  expect((await svc.call('DELETE', `/v1/documents/${gone.doc_id}${q}`)).status).toBe(200);
  await post(`/v1/documents${q}&readers=acme-operator`, { content: 'A private diary entry about the engine.' });
  await post(`${at}/media${q}`, { modality: 'image', content_type: 'image/png', data_base64: png.toString('base64'), caption: 'a diagram of the engine', filename: 'engine.png' });
  exported = await exportOf(svc, 'src');
}, 300_000);

afterAll(async () => {
  await svc?.stop();
});

describe('GET /v1/memory/export', () => {
  it('streams every record of the owner as NDJSON: entities, every edge and fact version, every document with its bytes and vectors', () => {
    const types = typesOf(exported);
    expect(types.filter((t) => t === 'entity')).toHaveLength(2);
    expect(types.filter((t) => t === 'relationship')).toHaveLength(2);
    expect(types.filter((t) => t === 'fact')).toHaveLength(FACTS + 4);
    expect(types.filter((t) => t === 'document')).toHaveLength(4);
    const records = exported.map((l) => JSON.parse(l) as { type: string; record: Record<string, any> });
    const byType = (type: string) => records.filter((r) => r.type === type).map((r) => r.record);
    expect(byType('relationship').find((r) => r.relationship_type === 'works_at')?.invalid_from).not.toBeNull();
    const cities = byType('fact').filter((f) => f.predicate === 'city');
    expect(cities.map((f) => f.value).sort()).toEqual(['London', 'Paris']);
    expect(cities.find((f) => f.value === 'Paris')?.supersedes_fact_id).toBe(cities.find((f) => f.value === 'London')?.fact_id);
    expect(byType('fact').find((f) => f.predicate === 'pet')?.invalid_from).not.toBeNull();
    const docs = byType('document');
    expect(docs.find((d) => d.content?.includes('Baker'))?.deleted_at).not.toBeNull();
    const media = docs.find((d) => d.modality === 'image')!;
    expect(Buffer.from(media.data_base64, 'base64').equals(png)).toBe(true);
    expect(media.passages[0]).toMatchObject({ text: 'a diagram of the engine', embedder: expect.any(String) });
    expect(Buffer.from(media.passages[0].vector_base64, 'base64').length).toBe(384 * 4);
  });

  it('leaves out the documents a key may not read; an admin key of the tenant exports them all', async () => {
    const asReader = await exportOf(svc, 'src', KEYS.acme);
    expect(asReader).toHaveLength(exported.length - 1);
    expect(asReader.join('\n')).not.toContain('private diary');
    expect(exported.join('\n')).toContain('private diary');
  });

  it('is empty for an owner without records, and scoped to the key\'s tenant', async () => {
    expect(await exportOf(svc, 'nobody')).toEqual([]);
    expect(await exportOf(svc, 'src', KEYS.globex)).toEqual([]);
  });
});

describe('POST /v1/memory/import', () => {
  it('restores the owner into an empty one: exporting it again gives the same lines, and every read finds the records', async () => {
    // The tenant's field indexes are awake before the import, so its documents reach them through the write hooks.
    expect((await svc.call('POST', '/v1/query', { body: { filter: { field: 'entity_id', op: 'eq', value: 'copy' } } })).body.total).toBe(0);
    const res = await importInto(svc, 'copy', exported);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ imported: { entities: 2, relationships: 2, facts: FACTS + 4, documents: 4 }, reembedded_documents: 0 });
    expect(await exportOf(svc, 'copy')).toEqual(movedTo(exported, 'copy'));

    const q = '?entity_id=copy';
    const hit = await svc.call('GET', `/v1/search${q}&q=${encodeURIComponent('green tea morning')}&k=1`);
    expect(hit.body.results[0].passage).toContain('Green tea');
    const diagram = await svc.call('GET', `/v1/search${q}&q=diagram&k=1&mode=semantic`);
    expect(diagram.body.results[0].modality).toBe('image');
    const download = await svc.call('GET', `/v1/documents/${diagram.body.results[0].doc_id}/download${q}`);
    expect(Buffer.from(download.body as string, 'latin1').length).toBeGreaterThan(0);
    const queried = await svc.call('POST', '/v1/query', { body: { filter: { field: 'entity_id', op: 'eq', value: 'copy' } } });
    expect(queried.body.total).toBe(2); // the live documents the acme key may read
    const city = await svc.call('GET', `/v1/memory/facts${q}&predicate=city`);
    expect(city.body.facts.map((f: { value: string }) => f.value)).toEqual(['Paris']);
    const edges = await svc.call('GET', `/v1/memory/relationships${q}&include_inactive=true`);
    expect(edges.body.count).toBe(2);
    expect((await svc.call('GET', `/v1/memory/entities/ada${q}`)).body.aliases).toEqual(['Countess']);
    expect((await svc.call('GET', `/v1/documents${q}&include_deleted=true`)).body.count).toBe(3);
  }, 120_000);

  it('answers 409 conflict for an owner that holds anything, and changes nothing of it', async () => {
    await post('/v1/memory/facts?entity_id=busy', { predicate: 'mood', value: 'calm' });
    const before = await exportOf(svc, 'busy');
    const res = await importInto(svc, 'busy', exported.slice(0, 3));
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('conflict');
    expect(await exportOf(svc, 'busy')).toEqual(before);
  });

  it('lets one of two imports into the same owner at once through, and answers the other 409 without touching the first', async () => {
    const lines = exported.slice(0, 2000);
    const answers = await Promise.all([importInto(svc, 'twice', lines), importInto(svc, 'twice', lines)]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    expect(await exportOf(svc, 'twice')).toEqual(movedTo(lines, 'twice'));
  }, 120_000);

  it('refuses a malformed line with 400 naming the line and the field, and leaves the owner empty though batches before it were written', async () => {
    const lines = [...exported];
    const at = lines.length - 3; // after every entity, edge and fact, so several batches have committed
    const broken = JSON.parse(lines[at]!) as { record: Record<string, unknown> };
    broken.record.created_at = 'yesterday';
    lines[at] = JSON.stringify(broken);
    const res = await importInto(svc, 'failed', lines);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_input');
    expect(res.body.error).toContain(`line ${at + 1} record.created_at`);
    expect(await exportOf(svc, 'failed')).toEqual([]);
    const q = '?entity_id=failed';
    expect((await svc.call('GET', `/v1/memory/facts${q}`)).body.count).toBe(0);
    expect((await svc.call('GET', `/v1/documents${q}&include_deleted=true`)).body.count).toBe(0);
    expect((await svc.call('GET', `/v1/search${q}&q=tea`)).body.results).toEqual([]);
    expect((await svc.call('POST', '/v1/query', { body: { filter: { field: 'entity_id', op: 'eq', value: 'failed' } } })).body.total).toBe(0);
    // Empty indeed: the whole export goes in now.
    expect((await importInto(svc, 'failed', exported)).status).toBe(200);
  }, 120_000);

  it.each([
    ['not JSON', '{"type":', 'line 1 is not valid JSON'],
    ['an unknown type', '{"type":"widget","record":{}}', 'line 1 type must be one of entity, relationship, fact, document'],
    ['an edge to an entity no earlier line holds', 'edge-first', 'line 1 record.from_entity_id names entity ada, which no earlier line holds'],
    ['a document whose bytes do not match its cid', 'bad-cid', 'record.cid does not match the content'],
  ])('refuses %s, naming the line', async (_case, line, message) => {
    const edge = exported.find((l) => l.includes('"type":"relationship"'))!;
    const doc = exported.find((l) => l.includes('"modality":"image"'))!;
    const text = line === 'edge-first' ? edge : line === 'bad-cid' ? doc.replace(/"cid":"mgc1-[0-9a-f]/, '"cid":"mgc1-0') : line;
    const res = await importInto(svc, 'refused', [text]);
    expect(res.status).toBe(400);
    expect(res.body.error).toContain(message);
    expect(await exportOf(svc, 'refused')).toEqual([]);
  });

  it('refuses a body that is not NDJSON', async () => {
    const res = await svc.call('POST', '/v1/memory/import?entity_id=json', { key: KEYS.acmeAdmin, body: { type: 'entity' } });
    expect(res.status).toBe(400);
    expect(res.body.error).toContain('application/x-ndjson');
  });
});

describe('import into another node', () => {
  /** Runs `test` against a service of its own (another DATA_DIR), stopped afterwards. */
  async function onAnotherNode<T extends TestService>(start: Promise<T>, test: (node: T) => Promise<void>): Promise<void> {
    const node = await start;
    try {
      await test(node);
    } finally {
      await node.stop();
    }
  }

  it('rolls back an import whose client goes away in the middle of the upload', async () => {
    // A real socket: the upload is cut off after part of the stream, as a dropped connection would.
    await onAnotherNode(startTestService({ socket: true }), async (node) => {
      const req = request(`${node.url}/v1/memory/import?entity_id=cut`, { method: 'POST', headers: { authorization: `Bearer ${KEYS.acmeAdmin}`, ...NDJSON } });
      req.on('error', () => undefined);
      await new Promise((resolve) => req.write(exported.slice(0, 3000).map((l) => `${l}\n`).join(''), resolve));
      req.destroy();
      // Once the roll-back has released the owner, it is empty: the whole export goes in (a leftover would be 409 forever).
      await until(() => importInto(node, 'cut', exported), (res) => res.status === 200);
      expect(await exportOf(node, 'cut')).toEqual(movedTo(exported, 'cut'));
    });
  }, 120_000);

  it('refuses a line over IMPORT_LINE_MAX_BYTES with 413 naming it, and keeps nothing', async () => {
    await onAnotherNode(startTestService({ env: { IMPORT_LINE_MAX_BYTES: '2000' } }), async (small) => {
      const first = exported.findIndex((l) => Buffer.byteLength(l) > 2000);
      expect(first).toBeGreaterThan(FACTS); // a document line (a vector alone is 2,048 bytes of base64)
      const res = await importInto(small, 'copy', exported);
      expect(res.status).toBe(413);
      expect(res.body.error).toContain(`line ${first + 1} is longer than 2000 bytes`);
      expect(await exportOf(small, 'copy')).toEqual([]);
    });
  }, 120_000);

  it('re-embeds the passages when its embedder is another, and keeps every other field as it was', async () => {
    await onAnotherNode(startTestService({ env: { EMBEDDER: 'model' } }), async (other) => {
      const res = await importInto(other, 'moved', exported);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.reembedded_documents).toBe(4);
      const again = await exportOf(other, 'moved');
      const strip = (l: string) => {
        const { record, type } = JSON.parse(l) as { type: string; record: Record<string, unknown> };
        const { passages: _p, entity_id: _e, ...rest } = record;
        return JSON.stringify({ type, rest });
      };
      expect(again.map(strip)).toEqual(exported.map(strip));
      const passages = again.flatMap((l) => ((JSON.parse(l) as { record: { passages?: Array<{ embedder: string }> } }).record.passages ?? []));
      expect(passages.length).toBeGreaterThan(0);
      expect(passages.every((p) => p.embedder === MODEL_ID)).toBe(true);
      const hit = await other.call('GET', `/v1/search?entity_id=moved&q=${encodeURIComponent('what do I drink when I wake up')}&k=1&mode=semantic`);
      expect(hit.body.results[0].passage).toContain('Green tea');
    });
  }, 300_000);
});
