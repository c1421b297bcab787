import type { DocumentWriteHook, StoredDocument } from '../../domain/documents.js';
import type { DocValue } from '../plan/types.js';
import { extractField } from '../schema/extract.js';
import { compilePattern, PatternError, type FieldPattern } from '../schema/pattern.js';
import type { SchemaRegistry, WritableVersion } from '../schema/registry.js';
import { BUILTIN_FIELDS, MISSING, type BuiltinField, type Extracted, type FieldType } from '../schema/types.js';
import { SEG_SHIFT } from './docset.js';
import { columnForm, docNoKey, hasPostings, LIVE_VER, postingKey, READERS_VER, setKey, type IndexDb } from './layout.js';
import type { TenantStates } from './tenant-state.js';
import { WriteBatch } from './write-batch.js';

const BUILTIN_VERSIONS = (Object.keys(BUILTIN_FIELDS) as BuiltinField[]).map((name) => ({ name, ver: `b.${name}`, type: BUILTIN_FIELDS[name] as FieldType }));

/**
 * Keeps the field indexes in step with documents. As a DocumentWriteHook it runs inside the document
 * store's write transaction, so index entries commit with the document; a soft-deleted document is
 * taken out of every index (and put back on restore), so queries, coverage and mismatch counts only
 * ever see live documents. Every write is "set this document's value", which reads the old value from
 * the column and replaces it: the same call serves inserts, updates, deletes and (idempotent) backfills.
 */
export class FieldWriter implements DocumentWriteHook {
  /** Compiled patterns by source; null for a stored one fields may no longer use (declared before RE2). */
  private readonly patterns = new Map<string, FieldPattern | null>();

  constructor(
    private readonly db: IndexDb,
    private readonly schema: SchemaRegistry,
    private readonly states: TenantStates,
  ) {}

  onDocumentWrite(previous: StoredDocument | undefined, next: StoredDocument | undefined): void {
    const tenant = (next ?? previous)!.tenant;
    if (this.states.kind(tenant) === 'dormant') return;
    const batch = new WriteBatch(this.db);
    this.apply(batch, previous, next, this.schema.writableVersions(tenant));
    batch.flush();
  }

  /**
   * Bulk form (a tenant's wake, loaders): one batch over many current documents, skipping dormant
   * tenants like the hook; call inside a transaction. Indexing a document twice changes nothing.
   */
  writeMany(docs: StoredDocument[]): void {
    const batch = new WriteBatch(this.db);
    const versions = new Map<string, WritableVersion[] | null>();
    for (const doc of docs) {
      let v = versions.get(doc.tenant);
      if (v === undefined) versions.set(doc.tenant, (v = this.states.kind(doc.tenant) === 'dormant' ? null : this.schema.writableVersions(doc.tenant)));
      if (v) this.apply(batch, undefined, doc, v);
    }
    batch.flush();
  }

  /** Indexes one stored document into one version (backfill); call inside a transaction. */
  backfillOne(batch: WriteBatch, doc: StoredDocument, version: WritableVersion): void {
    const docNo = this.docNumber(doc);
    if (docNo === undefined) return;
    const live = doc.deleted_at === null;
    this.setValue(batch, doc.tenant, docNo, version.ver, version.type, live ? this.extract(doc, version) : { kind: 'missing' });
  }

  docNumber(doc: Pick<StoredDocument, 'tenant' | 'partition' | 'entity_id' | 'doc_id'>): number | undefined {
    return this.db.meta.get(docNoKey(doc)) as number | undefined;
  }

  private apply(batch: WriteBatch, previous: StoredDocument | undefined, next: StoredDocument | undefined, versions: WritableVersion[]): void {
    const doc = (next ?? previous)!;
    const t = doc.tenant;
    let docNo = this.docNumber(doc);
    // A number just allocated was never used (numbers are not reused), so no index holds anything of it.
    let fresh = false;
    if (docNo === undefined) {
      if (!next) return;
      docNo = batch.allocateDocNo(t);
      fresh = true;
      this.db.meta.put(docNoKey(doc), docNo);
    }
    const set = fresh ? this.setFresh.bind(this) : this.setValue.bind(this);
    const live = next && next.deleted_at === null ? next : undefined;
    for (const b of BUILTIN_VERSIONS) set(batch, t, docNo, b.ver, b.type, live ? builtinValue(live, b.name) : MISSING);
    set(batch, t, docNo, READERS_VER, 'string_list', live && live.readers !== null ? { kind: 'value', value: [...new Set(live.readers)] } : MISSING);
    for (const v of versions) {
      const applies = live && (v.partition_scope === null || v.partition_scope === live.partition);
      set(batch, t, docNo, v.ver, v.type, applies ? this.extract(live, v) : MISSING);
    }
    batch.setBit(setKey(t, LIVE_VER, 'e', docNo >>> SEG_SHIFT), docNo, live !== undefined);
    if (!next) this.db.meta.remove(docNoKey(doc));
  }

  private extract(doc: StoredDocument, v: WritableVersion): Extracted {
    return extractField(doc, v, 'regex' in v.source ? this.pattern(v.source.regex) : undefined);
  }

  private pattern(source: string): FieldPattern | null {
    let compiled = this.patterns.get(source);
    if (compiled === undefined) {
      try {
        compiled = compilePattern(source);
      } catch (error) {
        if (!(error instanceof PatternError)) throw error;
        compiled = null;
      }
      this.patterns.set(source, compiled);
    }
    return compiled;
  }

  /**
   * `setValue` for a document number never used before: there is no old value, posting or mismatch bit
   * to read or clear, and a missing value is what its column already holds, so it writes nothing. A bulk
   * load (every document new) skips about half the lookups of a write this way.
   */
  private setFresh(batch: WriteBatch, t: string, docNo: number, ver: string, type: FieldType, next: Extracted): void {
    const seg = docNo >>> SEG_SHIFT;
    if (next.kind === 'missing') return;
    if (next.kind === 'mismatch') {
      batch.setBit(setKey(t, ver, 'm', seg), docNo, true);
      return;
    }
    const { value } = next;
    if (hasPostings(ver)) {
      for (const v of Array.isArray(value) ? value : [value]) batch.setBit(postingKey(t, ver, v, seg), docNo, true);
    }
    batch.setBit(setKey(t, ver, 'e', seg), docNo, true);
    batch.setValue(t, ver, columnForm(type), docNo, value);
  }

  private setValue(batch: WriteBatch, t: string, docNo: number, ver: string, type: FieldType, next: Extracted): void {
    const form = columnForm(type);
    const seg = docNo >>> SEG_SHIFT;
    const old = batch.getValue(t, ver, form, docNo);
    const newValue: DocValue = next.kind === 'value' ? next.value : null;
    if (old !== null && newValue !== null && sameValue(old, newValue)) return;
    // A version without postings still removes an old value's: a store written before kept them.
    if (old !== null) {
      for (const v of Array.isArray(old) ? old : [old]) batch.setBit(postingKey(t, ver, v, seg), docNo, false);
    }
    if (newValue !== null && hasPostings(ver)) {
      for (const v of Array.isArray(newValue) ? newValue : [newValue]) batch.setBit(postingKey(t, ver, v, seg), docNo, true);
    }
    if ((old !== null) !== (newValue !== null)) batch.setBit(setKey(t, ver, 'e', seg), docNo, newValue !== null);
    const mismatchKey = setKey(t, ver, 'm', seg);
    if (next.kind === 'mismatch' || (old === null && batch.hasBit(mismatchKey, docNo))) batch.setBit(mismatchKey, docNo, next.kind === 'mismatch');
    batch.setValue(t, ver, form, docNo, newValue);
  }
}

function sameValue(a: Exclude<DocValue, null>, b: Exclude<DocValue, null>): boolean {
  if (Array.isArray(a) || Array.isArray(b)) return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => x === b[i]);
  return a === b;
}

const v = (value: string | number | string[] | null): Extracted => (value === null ? MISSING : { kind: 'value', value });

function builtinValue(doc: StoredDocument, name: BuiltinField): Extracted {
  switch (name) {
    case 'tags':
      return v(doc.tags.length === 0 ? null : [...new Set(doc.tags)]);
    case 'created_at':
    case 'updated_at':
    case 'doc_id':
    case 'entity_id':
    case 'partition':
    case 'modality':
    case 'content_type':
    case 'source':
      return v(doc[name]);
  }
}
