import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredDocument } from '../../src/domain/documents.js';
import type { QueryEngine } from '../../src/query/engine.js';
import { BUILTIN_FIELDS } from '../../src/query/schema/types.js';
import type { QueryService } from '../../src/query/service.js';
import { columnKey, KEY_TOP, STR_CHUNK_SIZE } from '../../src/query/storage/layout.js';
import { decodeStringChunk } from '../../src/query/storage/string-chunk.js';
import { openStore, type Store } from '../../src/store/lmdb.js';
import { answersJson, metadataDoc, metadataFields, queryParts, writeDocs } from '../helpers/field-docs.js';

const N = 2_100;
const FIELDS = metadataFields({ s: 'string', k: 'int' });
const metadata = (n: number, shift = 0): StoredDocument['metadata'] => (n % 7 === 0 ? { k: n % 5 } : { s: ['open', 'closed', 'pending'][(n + shift) % 3]!, k: n % 5 });

const REQUESTS = [
  { group_by: ['s'], aggregate: [{ op: 'count' as const }, { op: 'sum' as const, field: 'k' }, { op: 'count_distinct' as const, field: 'entity_id', as: 'owners' }] },
  { filter: { field: 's', op: 'eq' as const, value: 'open' }, sort: [{ by: 'k', dir: 'desc' as const }], limit: 15 },
  { filter: { field: 's', op: 'prefix' as const, value: 'p' }, sort: [{ by: 's', dir: 'asc' as const }], limit: 10, offset: 700 },
  { filter: { field: 'entity_id', op: 'eq' as const, value: 'e1' }, sort: [{ by: 'doc_id', dir: 'desc' as const }], limit: 5 },
];

/**
 * Before issue 16, string columns were msgpack arrays of STR_CHUNK_SIZE values in `field_meta`; they are now
 * dictionary-coded chunks in `field_bin`. A store written before must answer the same, and its chunks are
 * rewritten in the new form when writes reach them.
 */
describe('string columns written in the format before issue 16', () => {
  let dir: string;
  let store: Store;
  let service: QueryService;
  let engine: QueryEngine;

  const write = (t: string, docs: Array<[StoredDocument | undefined, StoredDocument]>) => writeDocs(store, service, t, docs);
  const stringVersions = (t: string) => [
    ...Object.entries(BUILTIN_FIELDS).flatMap(([name, type]) => (type === 'string' ? [`b.${name}`] : [])),
    ...engine.schema.list(t).flatMap((f) => (f.active?.type === 'string' ? [f.active.ver] : [])),
  ];

  /** Rewrites every string column of tenant `t` as the old writer left it. */
  const toLegacyFormat = (t: string) =>
    store.transaction(() => {
      for (const ver of stringVersions(t)) {
        const chunks = [...engine.db.bin.getRange({ start: [t, 'c', ver], end: [t, 'c', ver, KEY_TOP] })];
        for (const { key, value } of chunks) {
          const chunk = decodeStringChunk(value);
          const chunkNo = key[3] as number;
          for (let j = 0; j < 8; j++) {
            const values = Array.from({ length: STR_CHUNK_SIZE }, (_, i) => chunk.get(j * STR_CHUNK_SIZE + i));
            if (values.some((v) => v !== null)) engine.db.meta.put(columnKey(t, ver, chunkNo * 8 + j), values);
          }
          engine.db.bin.remove(key);
        }
      }
    });
  const legacyChunks = (t: string, ver: string) => [...engine.db.meta.getKeys({ start: [t, 'c', ver], end: [t, 'c', ver, KEY_TOP] })].length;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'engram-legacy-columns-'));
    store = openStore(dir);
    ({ service, engine } = queryParts(store));
    for (const t of ['old', 'new']) {
      await service.declare(t, FIELDS, () => {});
      await write(t, Array.from({ length: N }, (_, n) => [undefined, metadataDoc(t, n, metadata(n))]));
    }
    await toLegacyFormat('old');
  });
  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers filters, sorts, groups and document fields as a store written in the new format does', async () => {
    const sVer = stringVersions('old').at(-1)!;
    expect([legacyChunks('old', sVer), legacyChunks('old', 'b.doc_id')]).toEqual([17, 17]);
    expect(await answersJson(service, 'old', REQUESTS)).toBe(await answersJson(service, 'new', REQUESTS));
  });

  it('after writes into some chunks (rewritten in the new form), still answers like the new-format store', async () => {
    for (const t of ['old', 'new']) {
      const changed = [3, 4, 1500, 1501, 2099].map((n): [StoredDocument, StoredDocument] => [metadataDoc(t, n, metadata(n)), metadataDoc(t, n, metadata(n, 1))]);
      await write(t, changed);
    }
    const sVer = stringVersions('old').at(-1)!;
    // Chunks 0 and 1 (documents 0-2047) were rewritten; chunk 2 (2048-2099) too; none is left in the old form.
    expect(legacyChunks('old', sVer)).toBe(0);
    expect(await answersJson(service, 'old', REQUESTS)).toBe(await answersJson(service, 'new', REQUESTS));
  });
});
