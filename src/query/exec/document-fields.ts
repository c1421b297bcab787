import type { DocumentFieldValues, StoredDocument } from '../../domain/documents.js';
import { prototypeFree } from '../../domain/prototype-free.js';
import { toJsonValue } from '../schema/coerce.js';
import type { SchemaRegistry } from '../schema/registry.js';
import { columnForm } from '../storage/layout.js';
import type { IndexReader } from '../storage/reader.js';

/**
 * The declared field values a document record shows, read from the field columns: what the indexes
 * hold, so exactly what queries see. Values are extracted once, when the document is written (or
 * backfilled); reading them back never runs a field's pattern again, so a page of 1,000 documents
 * costs column reads, not 1,000 pattern matches per regex field. A document out of the indexes (soft-
 * deleted, or not reached yet by a field's first backfill) shows no value for it. In a partition, its
 * own fields shadow tenant-wide fields of the same name.
 */
export function storedFieldValues(schema: SchemaRegistry, reader: IndexReader, doc: StoredDocument, docNo: number | undefined): DocumentFieldValues {
  const out: DocumentFieldValues = prototypeFree();
  if (docNo === undefined) return out;
  for (const f of schema.list(doc.tenant)) {
    const def = f.active ?? f.next;
    if (!def || (f.partition_scope !== null && f.partition_scope !== doc.partition)) continue;
    if (f.partition_scope === null && doc.partition !== null && schema.get(doc.tenant, doc.partition, f.name)) continue;
    const value = reader.value(doc.tenant, def.ver, columnForm(def.type), docNo);
    if (value !== null) out[f.name] = toJsonValue(value, def.type);
  }
  return out;
}
