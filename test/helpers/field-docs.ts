import type { StoredDocument } from '../../src/domain/documents.js';
import { QueryEngine } from '../../src/query/engine.js';
import { QueryService, type FieldDeclaration, type QueryRequest } from '../../src/query/service.js';
import { DocumentRecords } from '../../src/store/documents.js';
import type { Store } from '../../src/store/lmdb.js';

/** A text document of tenant `tenant` whose metadata holds `metadata` (the sources of metadata fields). */
export function metadataDoc(tenant: string, n: number, metadata: StoredDocument['metadata']): StoredDocument {
  return {
    doc_id: `doc_${n}`,
    cid: 'mgc1-x',
    tenant,
    entity_id: `e${n % 3}`,
    partition: null,
    modality: 'text',
    content_type: 'text/plain',
    title: null,
    content: null,
    derived_text: null,
    derived_by: null,
    filename: null,
    metadata,
    tags: [],
    source: null,
    readers: null,
    created_at: 1_000 + n,
    updated_at: 1_000 + n,
    deleted_at: null,
  };
}

/** Declared metadata fields, tenant-wide, each read from the metadata key of its name. */
export const metadataFields = (fields: Record<string, FieldDeclaration['type']>): FieldDeclaration[] =>
  Object.entries(fields).map(([name, type]) => ({ name, type, source: { metadata: name }, partition_scope: null }));

/** A query service and engine over `store`, with the given caps. */
export function queryParts(store: Store, caps = { maxGroups: 10_000, maxScanned: 1_000_000 }): { service: QueryService; engine: QueryEngine } {
  return { service: new QueryService(store, new DocumentRecords(store), caps), engine: new QueryEngine(store, caps) };
}

/** Writes documents of tenant `t` as the document store does: each record and its index entries in one transaction. */
export const writeDocs = (store: Store, service: QueryService, t: string, docs: Array<[StoredDocument | undefined, StoredDocument]>) =>
  store.transaction(() => {
    for (const [prev, next] of docs) {
      store.records.put([t, '', next.entity_id, 'doc', next.doc_id], next);
      service.writer.onDocumentWrite(prev, next);
    }
  });

/** The answers to `requests` for tenant `t`, as JSON with the tenant's name replaced by "t", to compare two tenants. */
export async function answersJson(service: QueryService, t: string, requests: QueryRequest[]): Promise<string> {
  const answers = await Promise.all(requests.map((r) => service.run({ tenant: t, partition: null, principal: 'p' }, r)));
  return JSON.stringify(answers).replaceAll(`"${t}"`, '"t"');
}
