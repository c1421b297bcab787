import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Scope } from '../../src/domain/scope.js';
import { KEY_MAX, openStore, scopeKey, type Key, type Store } from '../../src/store/lmdb.js';
import type { TestService } from './service.js';

type Call = TestService['call'];

/** The owner's query parameters. */
export const ownerQuery = (owner: string, partition?: string) => `entity_id=${encodeURIComponent(owner)}${partition ? `&partition=${encodeURIComponent(partition)}` : ''}`;

/** The fields the erasure tests declare per tenant: their index entries and coverage counts are erased too. */
export const FIELDS = [
  { name: 'category', type: 'string', source: { metadata: 'category' } },
  { name: 'amount', type: 'float', source: { metadata: 'amount' } },
];

const PNG = () => readFileSync(new URL('../fixtures/media/image.png', import.meta.url)).toString('base64');

/**
 * Gives an owner one of every kind of record through the API: entities, an edge, facts with history,
 * text documents with declared-field metadata (one soft-deleted), media with bytes, and, when `jobs` is
 * set, a consolidation run and a captioned image (runs in Temporal). Returns the ids it made.
 */
export async function fillOwner(call: Call, key: string, owner: string, partition?: string, jobs = false): Promise<{ docIds: string[] }> {
  const q = ownerQuery(owner, partition);
  const ok = async (method: string, path: string, body?: unknown) => {
    const res = await call(method, path, { key, body });
    if (res.status >= 300) throw new Error(`${method} ${path} → ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  await ok('POST', `/v1/memory/entities?${q}`, { entity_type: 'person', memory_entity_id: 'ann', display_name: `Ann of ${owner}`, attributes: { age: 41 } });
  await ok('POST', `/v1/memory/entities?${q}`, { entity_type: 'org', memory_entity_id: 'acme-co' });
  await ok('POST', `/v1/memory/relationships?${q}`, { from_entity_id: 'ann', to_entity_id: 'acme-co', relationship_type: 'works_at', relationship_id: 'ann-acme' });
  await ok('POST', `/v1/memory/facts?${q}`, { predicate: 'color', value: `red of ${owner}` });
  await ok('POST', `/v1/memory/facts?${q}`, { predicate: 'color', value: 'blue' });
  await ok('POST', `/v1/memory/facts?${q}`, { predicate: 'likes', value: 'tea', cardinality: 'multi', subject_type: 'entity', subject_id: 'ann' });
  const docIds: string[] = [];
  for (let i = 0; i < 3; i++) {
    const doc = await ok('POST', `/v1/documents?${q}`, { content: `notes ${i} of ${owner}: water the orchids`, metadata: { category: `cat-${i % 2}`, amount: i + 0.5 } });
    docIds.push(doc.doc_id);
  }
  await ok('DELETE', `/v1/documents/${docIds[2]}?${q}`);
  const media = await ok('POST', `/v1/memory/media?${q}`, { modality: 'image', content_type: 'image/png', data_base64: PNG(), caption: 'a gradient of notes', metadata: { category: 'cat-0' } });
  docIds.push(media.doc_id);
  if (jobs) {
    const captioned = await ok('POST', `/v1/memory/media?${q}`, { modality: 'image', content_type: 'image/png', data_base64: PNG(), filename: 'sky.png' });
    docIds.push(captioned.doc_id);
    await ok('POST', `/v1/memory/consolidate?${q}`);
  }
  return { docIds };
}

/** Everything the API shows of one owner (and of the tenant's queries and field counts), status and body. */
export async function readOwner(call: Call, key: string, owner: string, docIds: string[], partition?: string): Promise<Record<string, unknown>> {
  const q = ownerQuery(owner, partition);
  const get = async (path: string, init: { method?: string; body?: unknown } = {}) => {
    const res = await call(init.method ?? 'GET', path, { key, body: init.body });
    // Errors carry their request's id, which differs from read to read.
    const { request_id: _, ...body } = typeof res.body === 'object' && res.body !== null ? res.body : { request_id: null, text: res.body };
    return { status: res.status, body };
  };
  const pq = partition ? `?partition=${encodeURIComponent(partition)}` : '';
  // Without a partition a query spans the tenant's partitions: the owner without one is the one with no partition.
  const ofOwner = { and: [{ field: 'entity_id', op: 'eq', value: owner }, partition ? { field: 'partition', op: 'eq', value: partition } : { field: 'partition', op: 'exists', value: false }] };
  const reads: Record<string, unknown> = {
    entities: await get(`/v1/memory/entities?${q}`),
    entity: await get(`/v1/memory/entities/ann?${q}`),
    relationships: await get(`/v1/memory/relationships?${q}&include_inactive=true`),
    facts: await get(`/v1/memory/facts?${q}&include_inactive=true`),
    history: await get(`/v1/memory/facts?${q}&history=true&subject_type=owner&predicate=color`),
    documents: await get(`/v1/documents?${q}&include_deleted=true`),
    search: await get(`/v1/search?${q}&q=${encodeURIComponent('notes orchids')}&k=20`),
    query: await get(`/v1/query${pq}`, { method: 'POST', body: { filter: ofOwner, sort: [{ by: 'doc_id', dir: 'asc' }] } }),
    groups: await get(`/v1/query${pq}`, { method: 'POST', body: { filter: ofOwner, group_by: ['category'], aggregate: [{ op: 'count' }, { op: 'sum', field: 'amount', as: 'total' }], sort: [{ by: 'category', dir: 'asc' }] } }),
  };
  for (const id of docIds) {
    reads[`doc ${id}`] = await get(`/v1/documents/${id}?${q}`);
    reads[`download ${id}`] = await get(`/v1/documents/${id}/download?${q}`);
  }
  return reads;
}

/** Every LMDB key left of an owner: its records and index entries, its field-index document numbers, its hold, its data key's slot. */
export function ownerKeys(store: Store, scope: Scope): Key[] {
  const s = scopeKey(scope);
  const under = (db: { getKeys(range: object): Iterable<unknown> }, prefix: Key) =>
    [...db.getKeys({ start: prefix, end: [...prefix, KEY_MAX] })].map((k) => k as Key).filter((k) => prefix.every((part, i) => k[i] === part));
  const meta = store.env.openDB<unknown, Key>({ name: 'field_meta' });
  const holds = store.env.openDB<unknown, Key>({ name: 'owner_holds' });
  const dataKeys = store.env.openDB<unknown, Key>({ name: 'owner_keys' });
  return [
    ...under(store.records, s),
    ...under(store.index, s),
    ...under(store.idempotency, s),
    ...under(meta, [scope.tenant, 'd', scope.partition ?? '', scope.entityId]),
    ...under(holds, ['h', scope.tenant, scope.partition ?? '', scope.entityId]),
    // The owner's data-key slot number (src/store/owner-keys.ts): gone once its key is destroyed.
    ...under(dataKeys, [scope.tenant, scope.partition ?? '', scope.entityId]),
  ];
}

/** Opens a stopped service's LMDB and lists the owner's keys. */
export async function ownerKeysOnDisk(dataDir: string, scope: Scope): Promise<Key[]> {
  const store = openStore(dataDir);
  try {
    return ownerKeys(store, scope);
  } finally {
    await store.close();
  }
}

/** Whether the owner's vector index file (DATA_DIR/vectors, named by a digest of the scope) exists. */
export function vectorFileExists(dataDir: string, scope: Scope): boolean {
  const name = createHash('sha256').update(JSON.stringify([scope.tenant, scope.partition, scope.entityId])).digest('hex').slice(0, 32);
  return existsSync(join(dataDir, 'vectors', `${name}.hnsw`)) || existsSync(join(dataDir, 'vectors', `${name}.json`));
}
