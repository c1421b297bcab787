import type { DocumentFieldValues, StoredDocument } from '../domain/documents.js';
import { compileQuery, type QueryRequest } from './plan/compile.js';
import type { CompiledQuery, QueryCaps } from './plan/types.js';
import type { FieldSource, FieldType } from './schema/types.js';
import { cardinality, toArray } from './storage/docset.js';
import { FieldIndex } from './storage/writer.js';
import { FieldQueryEngine, type DocumentPage, type GroupResult, type QueryContext } from './exec/top-k.js';
import { FieldReader } from './storage/reader.js';
import { SchemaStore, type FieldRecord, type WritableVersion } from './schema/registry.js';
import { KEY_TOP, openFieldDb, WriteBatch, type FieldDb } from './storage/layout.js';
import type { Key, Store } from '../store/lmdb.js';

export interface FieldDeclaration {
  name: string;
  type: FieldType;
  source: FieldSource;
  partition_scope: string | null;
}

export interface FieldListing extends FieldRecord {
  coverage: number;
  mismatch_count: number;
}

/** Identifies one backfill: a field version to build. Ids only, so it can be a workflow input. */
export interface BackfillRef {
  tenant: string;
  partition_scope: string | null;
  name: string;
  ver: string;
}

export type CompiledResult = { mode: 'documents'; page: DocumentPage } | { mode: 'groups'; result: GroupResult };

/**
 * The field schema, its indexes and the structured query engine of every tenant, over one LMDB store.
 * Tenant-wide read-modify-writes (document numbers, field records, containers) happen inside
 * `store.transaction` callbacks only.
 */
export class FieldService {
  readonly db: FieldDb;
  readonly schema: SchemaStore;
  readonly index: FieldIndex;
  readonly engine: FieldQueryEngine;

  constructor(
    private readonly store: Store,
    readonly caps: QueryCaps,
  ) {
    this.db = openFieldDb(store);
    this.schema = new SchemaStore(this.db);
    this.index = new FieldIndex(this.db, this.schema);
    this.engine = new FieldQueryEngine(this.db, caps);
  }

  documentFields(doc: StoredDocument): DocumentFieldValues {
    return this.index.documentFields(doc);
  }

  list(tenant: string, scope?: string | null): FieldListing[] {
    const reader = new FieldReader(this.db);
    return this.schema.list(tenant, scope).map((f) => {
      // Counts follow the latest declaration: while it is being backfilled they show its progress.
      const ver = (f.next ?? f.active)!.ver;
      return { ...f, coverage: cardinality(reader.set(tenant, ver, 'e')), mismatch_count: cardinality(reader.set(tenant, ver, 'm')) };
    });
  }

  /**
   * Declares or re-declares fields in one transaction. Each gets a new version; when no live document
   * is in its scope it is complete at once, else it is `pending` and returned for a backfill. `gate`
   * runs inside the transaction before any write, so it can refuse (throw) when backfills cannot run.
   */
  async declare(tenant: string, fields: FieldDeclaration[], gate: (needBackfill: boolean) => void): Promise<BackfillRef[]> {
    const refs = await this.store.transaction(() => {
      const reader = new FieldReader(this.db);
      const live = reader.liveSet(tenant);
      const docsIn = (scope: string | null) => cardinality(scope === null ? live : andPartition(reader, tenant, live, scope));
      const needs = fields.map((f) => docsIn(f.partition_scope) > 0);
      gate(needs.some(Boolean));
      const refs: BackfillRef[] = [];
      for (const [i, f] of fields.entries()) {
        const existing = this.schema.get(tenant, f.partition_scope, f.name);
        const ver = this.schema.mintVersion(tenant);
        const def = { ver, type: f.type, source: f.source };
        const record: FieldRecord = needs[i]
          ? { name: f.name, partition_scope: f.partition_scope, type: f.type, source: f.source, active: existing?.active ?? null, next: def, backfill: 'pending' }
          : { name: f.name, partition_scope: f.partition_scope, type: f.type, source: f.source, active: def, next: null, backfill: 'complete' };
        this.schema.put(tenant, record);
        if (needs[i]) refs.push({ tenant, partition_scope: f.partition_scope, name: f.name, ver });
        // A superseded pending version is dropped; its backfill notices and stops.
        if (existing?.next) this.retire(tenant, existing.next.ver);
        if (!needs[i] && existing?.active) this.retire(tenant, existing.active.ver);
      }
      return refs;
    });
    await this.collect(tenant);
    return refs;
  }

  /** Removes a field and its index entries; returns false when it was not declared. */
  async remove(tenant: string, scope: string | null, name: string): Promise<boolean> {
    const removed = await this.store.transaction(() => {
      const existing = this.schema.get(tenant, scope, name);
      if (!existing) return false;
      this.schema.remove(tenant, scope, name);
      for (const v of [existing.active, existing.next]) if (v) this.retire(tenant, v.ver);
      return true;
    });
    await this.collect(tenant);
    return removed;
  }

  compile(tenant: string, partition: string | null, request: QueryRequest): { query: CompiledQuery; resolve: ReturnType<SchemaStore['resolver']> } {
    const resolve = this.schema.resolver(tenant, partition);
    return { query: compileQuery(request, resolve, this.caps.maxGroups), resolve };
  }

  /** `reader` may be passed to count the index entries a query touches (the bench does). */
  run(ctx: QueryContext, compiled: { query: CompiledQuery; resolve: ReturnType<SchemaStore['resolver']> }, reader = new FieldReader(this.db)): CompiledResult {
    const { query, resolve } = compiled;
    return query.mode === 'documents'
      ? { mode: 'documents', page: this.engine.documents(ctx, query, resolve, reader) }
      : { mode: 'groups', result: this.engine.groups(ctx, query, reader) };
  }

  /** Where each document number's record lives (live documents only; null otherwise). */
  locateMany(tenant: string, docNos: number[], reader = new FieldReader(this.db)): Array<Key | null> {
    return docNos.map((n) => this.locate(tenant, n, reader));
  }

  locate(tenant: string, docNo: number, reader = new FieldReader(this.db)): Key | null {
    const docId = reader.value(tenant, 'b.doc_id', false, docNo) as string | null;
    if (docId === null) return null;
    const entity = reader.value(tenant, 'b.entity_id', false, docNo) as string;
    const partition = reader.value(tenant, 'b.partition', false, docNo) as string | null;
    return [tenant, partition ?? '', entity, 'doc', docId];
  }

  // --- backfill steps (called by the backfill activity) ---

  /** The version a backfill should build, or null when it was superseded or the field deleted. */
  backfillTarget(ref: BackfillRef): WritableVersion | null {
    const record = this.schema.get(ref.tenant, ref.partition_scope, ref.name);
    return record?.next?.ver === ref.ver ? { ...record.next, partition_scope: record.partition_scope } : null;
  }

  /** Live document numbers after `cursor` (exclusive), at most `limit`, and the live total of the scope. */
  backfillPage(ref: BackfillRef, cursor: number, limit: number): { docNos: number[]; total: number } {
    const reader = new FieldReader(this.db);
    const live = reader.liveSet(ref.tenant);
    const scoped = ref.partition_scope === null ? live : andPartition(reader, ref.tenant, live, ref.partition_scope);
    const all = toArray(scoped);
    let lo = 0;
    let hi = all.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (all[mid]! <= cursor) lo = mid + 1;
      else hi = mid;
    }
    return { docNos: Array.from(all.subarray(lo, lo + limit)), total: all.length };
  }

  /**
   * Indexes documents into the version and records progress, in one transaction; false when the
   * version was superseded or the field deleted. Documents are read inside the transaction, so a
   * concurrent delete or update cannot be overwritten with a stale copy.
   */
  async backfillApply(ref: BackfillRef, docNos: number[], progress: { done: number; total: number }): Promise<boolean> {
    return this.store.transaction(() => {
      const target = this.backfillTarget(ref);
      if (!target) return false;
      const batch = new WriteBatch(this.db);
      const reader = new FieldReader(this.db);
      for (const docNo of docNos) {
        const key = this.locate(ref.tenant, docNo, reader);
        const doc = key ? (this.store.records.get(key) as StoredDocument | undefined) : undefined;
        if (doc && (target.partition_scope === null || doc.partition === target.partition_scope)) this.index.backfillOne(batch, doc, target);
      }
      batch.flush();
      const record = this.schema.get(ref.tenant, ref.partition_scope, ref.name)!;
      this.schema.put(ref.tenant, { ...record, backfill: `running:${Math.min(progress.done, progress.total)}/${progress.total}` });
      return true;
    });
  }

  /** Switches the field to the built version atomically and drops the old one. */
  async backfillComplete(ref: BackfillRef): Promise<boolean> {
    const switched = await this.store.transaction(() => {
      const record = this.schema.get(ref.tenant, ref.partition_scope, ref.name);
      if (record?.next?.ver !== ref.ver) return false;
      this.schema.put(ref.tenant, { ...record, active: record.next, next: null, backfill: 'complete' });
      if (record.active) this.retire(ref.tenant, record.active.ver);
      return true;
    });
    await this.collect(ref.tenant);
    return switched;
  }

  async backfillFailed(ref: BackfillRef, reason: string): Promise<void> {
    await this.store.transaction(() => {
      const record = this.schema.get(ref.tenant, ref.partition_scope, ref.name);
      if (record?.next?.ver === ref.ver) this.schema.put(ref.tenant, { ...record, backfill: `failed:${reason}` });
    });
  }

  /**
   * Marks a version's index entries for deletion; call inside the transaction that stops using it.
   * The entries are deleted afterwards by `collect`, in bounded transactions, so switching a field
   * never holds the write queue for the size of its index.
   */
  private retire(t: string, ver: string): void {
    this.db.meta.put([t, 'gc', ver], true);
  }

  /** Deletes retired versions' entries in pages of `pageKeys`; resumes whatever an earlier run left. */
  async collect(t: string, pageKeys = 20_000): Promise<void> {
    for (const key of [...this.db.meta.getKeys({ start: [t, 'gc'], end: [t, 'gc', KEY_TOP] })]) {
      const ver = (key as Key)[2] as string;
      for (;;) {
        const removed = await this.store.transaction(() => {
          let n = 0;
          for (const [db, tags] of [[this.db.bin, ['p', 's', 'c']], [this.db.meta, ['c']]] as const) {
            for (const tag of tags) {
              const prefix: Key = [t, tag, ver];
              const keys = [...db.getKeys({ start: prefix, end: [...prefix, KEY_TOP], limit: pageKeys - n })];
              for (const k of keys) db.remove(k as Key);
              n += keys.length;
              if (n >= pageKeys) return n;
            }
          }
          if (n === 0) this.db.meta.remove([t, 'gc', ver]);
          return n;
        });
        if (removed === 0) break;
      }
    }
  }
}

function andPartition(reader: FieldReader, t: string, live: ReturnType<FieldReader['liveSet']>, partition: string) {
  const p = reader.posting(t, 'b.partition', partition);
  const out: typeof live = new Map();
  for (const [seg, w] of live) {
    const pw = p.get(seg);
    if (!pw) continue;
    const r = new Uint32Array(w.length);
    for (let i = 0; i < w.length; i++) r[i] = w[i]! & pw[i]!;
    out.set(seg, r);
  }
  return out;
}
