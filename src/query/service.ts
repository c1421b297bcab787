import type { DocumentFieldValues, DocumentWriteHook, StoredDocument } from '../domain/documents.js';
import type { Scope } from '../domain/scope.js';
import type { BackfillRef } from '../jobs/contract.js';
import type { Store } from '../store/lmdb.js';
import { QueryEngine } from './engine.js';
import { hiddenDocs, type HiddenOwner, type QueryContext } from './exec/filter.js';
import { storedFieldValues } from './exec/document-fields.js';
import { groupsJson, type GroupJson } from './exec/groups.js';
import type { HalfOutcomes } from './exec/parallel-groups.js';
import type { QueryRequest } from './plan/compile.js';
import type { QueryCaps } from './plan/types.js';
import type { FieldRecord, WritableVersion } from './schema/registry.js';
import type { FieldSource, FieldType } from './schema/types.js';
import { andNot, cardinality, toArray } from './storage/docset.js';
import { WriteBatch } from './storage/write-batch.js';
import { TenantWaker, type TenantDocuments, type WakeSettings } from './wake.js';

// The public surface of src/query: everything outside imports from this file only.
export { AGGREGATE_OPS } from './plan/types.js';
export { FIELD_NAME_PATTERN, FIELD_NAME_RULE, FIELD_TYPES, isBuiltinField, MAX_REGEX_LENGTH, RESERVED_FIELD_NAMES } from './schema/types.js';
export { patternError } from './schema/pattern.js';
export type { GroupJson, HalfOutcomes, HiddenOwner, QueryCaps, QueryContext, QueryRequest, WakeSettings, WritableVersion };

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

/** The answer of `run`, already in the shape of the response body (the route adds the document JSON). */
export type QueryResult =
  | { mode: 'documents'; documents: Array<{ doc: StoredDocument; fields: DocumentFieldValues }>; total: number; has_more: boolean }
  | { mode: 'groups'; groups: GroupJson[]; total_groups: number; scanned: number };

/**
 * The document records the engine reads (the document store's read side, `DocumentRecords`). The engine
 * knows where a document lives (its scope and id), never how the record is keyed.
 */
export interface DocumentReader extends TenantDocuments {
  get(scope: Scope, docId: string): StoredDocument | undefined;
  getMany(refs: ReadonlyArray<{ scope: Scope; docId: string }>): Array<StoredDocument | undefined>;
}

const DEFAULT_WAKE: WakeSettings = { pageSize: 500, waitMs: 5_000 };

/**
 * The field schema, its indexes and the structured query engine of every tenant, over one LMDB store:
 * the one entry point of src/query. Tenant-wide read-modify-writes (document numbers, field records,
 * containers) happen inside `store.transaction` callbacks only.
 */
export class QueryService {
  /** Keeps the indexes in step with documents: give it to the document store as a write hook. */
  readonly writer: DocumentWriteHook;
  private readonly engine: QueryEngine;
  private readonly waker: TenantWaker;

  constructor(
    private readonly store: Store,
    private readonly documents: DocumentReader,
    caps: QueryCaps & { threads?: number },
    wake: WakeSettings = DEFAULT_WAKE,
    /** The tenant's owners whose documents queries and coverage counts leave out (being erased or imported). */
    private readonly hidden: (tenant: string) => readonly HiddenOwner[] = () => [],
  ) {
    this.engine = new QueryEngine(store, { maxGroups: caps.maxGroups, maxScanned: caps.maxScanned }, { helperThread: (caps.threads ?? 1) > 1 });
    this.writer = this.engine.writer;
    this.waker = new TenantWaker(store, this.engine, documents, wake);
  }

  /**
   * Runs `POST /v1/query` for the caller: a page of documents (Mode A, without `aggregate`) or groups
   * (Mode B). Unknown fields, bad literals and exceeded caps throw `invalid_input`. A dormant tenant's
   * first query waits for its indexes (`wake.ts`).
   */
  async run(ctx: QueryContext, request: QueryRequest): Promise<QueryResult> {
    const compiled = this.engine.compile(ctx.tenant, ctx.partition, request);
    await this.waker.ensureAwake(ctx.tenant);
    const reader = this.engine.reader();
    const result = await this.engine.run({ ...ctx, hidden: this.hidden(ctx.tenant) }, compiled, reader);
    if (result.mode === 'groups') {
      const { query, result: groups } = result;
      return { mode: 'groups', groups: groupsJson(groups.rows, query.groupBy, query.aggregates), total_groups: groups.totalGroups, scanned: groups.scanned };
    }
    const { query, page } = result;
    const refs = page.docNos.map((docNo) => this.engine.locate(ctx.tenant, docNo, reader)).filter((ref) => ref !== null);
    const docs = this.documents.getMany(refs).filter((doc) => doc !== undefined);
    return {
      mode: 'documents',
      documents: docs.map((doc) => ({ doc, fields: this.documentFields(doc, reader) })),
      total: page.total,
      has_more: query.offset + page.docNos.length < page.total,
    };
  }

  /** What became of large aggregations' later halves since start (`engram_query_halves_total`). */
  halfOutcomes(): HalfOutcomes {
    return this.engine.halfOutcomes();
  }

  /** Stops the query helper thread (call before the store closes). */
  close(): Promise<void> {
    return this.engine.close();
  }

  /** The declared field values of a document, as document records show them (`storedFieldValues`). */
  documentFields(doc: StoredDocument, reader = this.engine.reader()): DocumentFieldValues {
    return storedFieldValues(this.engine.schema, reader, doc, this.engine.writer.docNumber(doc));
  }

  list(tenant: string, scope?: string | null): FieldListing[] {
    const reader = this.engine.reader();
    const hidden = this.hidden(tenant);
    const hiddenSet = hidden.length > 0 ? hiddenDocs(reader, tenant, hidden) : null;
    const count = (ver: string, name: 'e' | 'm') => cardinality(hiddenSet ? andNot(reader.set(tenant, ver, name), hiddenSet) : reader.set(tenant, ver, name));
    return this.engine.schema.list(tenant, scope).map((f) => {
      // Counts follow the latest declaration: while it is being backfilled they show its progress.
      const ver = (f.next ?? f.active)!.ver;
      return { ...f, coverage: count(ver, 'e'), mismatch_count: count(ver, 'm') };
    });
  }

  /**
   * Declares or re-declares fields in one transaction. A field declared again as it is (same type and
   * source; the scope is part of its key) is left alone: same version, no backfill (DECISIONS.md), as
   * apps declare their schema at every boot. Every other gets a new version; when no live document is
   * in its scope it is complete at once, else it is `pending` and returned for a backfill. `gate` runs
   * inside the transaction before any write, so it can refuse (throw) when backfills cannot run.
   */
  async declare(tenant: string, fields: FieldDeclaration[], gate: (needBackfill: boolean) => void): Promise<BackfillRef[]> {
    const { schema } = this.engine;
    await this.waker.ensureAwake(tenant);
    const refs = await this.store.transaction(() => {
      const reader = this.engine.reader();
      const changed = fields.filter((f) => !unchanged(schema.get(tenant, f.partition_scope, f.name), f));
      const needs = changed.map((f) => cardinality(this.engine.liveIn(reader, tenant, f.partition_scope)) > 0);
      gate(needs.some(Boolean));
      const refs: BackfillRef[] = [];
      for (const [i, f] of changed.entries()) {
        const existing = schema.get(tenant, f.partition_scope, f.name);
        const ver = schema.mintVersion(tenant);
        const def = { ver, type: f.type, source: f.source };
        const record: FieldRecord = needs[i]
          ? { name: f.name, partition_scope: f.partition_scope, type: f.type, source: f.source, active: existing?.active ?? null, next: def, backfill: 'pending' }
          : { name: f.name, partition_scope: f.partition_scope, type: f.type, source: f.source, active: def, next: null, backfill: 'complete' };
        schema.put(tenant, record);
        if (needs[i]) refs.push({ tenant, partition_scope: f.partition_scope, name: f.name, ver });
        // A superseded pending version is dropped; its backfill notices and stops.
        if (existing?.next) this.engine.retire(tenant, existing.next.ver);
        if (!needs[i] && existing?.active) this.engine.retire(tenant, existing.active.ver);
      }
      return refs;
    });
    await this.engine.collect(tenant);
    return refs;
  }

  /** Removes a field and its index entries; returns false when it was not declared. */
  async remove(tenant: string, scope: string | null, name: string): Promise<boolean> {
    const removed = await this.store.transaction(() => {
      const existing = this.engine.schema.get(tenant, scope, name);
      if (!existing) return false;
      this.engine.schema.remove(tenant, scope, name);
      for (const v of [existing.active, existing.next]) if (v) this.engine.retire(tenant, v.ver);
      return true;
    });
    await this.engine.collect(tenant);
    return removed;
  }

  // --- backfill steps (called by the backfill activity) ---

  /** The version a backfill should build, or null when it was superseded or the field deleted. */
  backfillTarget(ref: BackfillRef): WritableVersion | null {
    const record = this.engine.schema.get(ref.tenant, ref.partition_scope, ref.name);
    return record?.next?.ver === ref.ver ? { ...record.next, partition_scope: record.partition_scope } : null;
  }

  /** Live document numbers after `cursor` (exclusive), at most `limit`, and the live total of the scope. */
  backfillPage(ref: BackfillRef, cursor: number, limit: number): { docNos: number[]; total: number } {
    const all = toArray(this.engine.liveIn(this.engine.reader(), ref.tenant, ref.partition_scope));
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
      const batch = new WriteBatch(this.engine.db);
      const reader = this.engine.reader();
      for (const docNo of docNos) {
        const at = this.engine.locate(ref.tenant, docNo, reader);
        const doc = at ? this.documents.get(at.scope, at.docId) : undefined;
        if (doc && (target.partition_scope === null || doc.partition === target.partition_scope)) this.engine.writer.backfillOne(batch, doc, target);
      }
      batch.flush();
      const record = this.engine.schema.get(ref.tenant, ref.partition_scope, ref.name)!;
      this.engine.schema.put(ref.tenant, { ...record, backfill: `running:${Math.min(progress.done, progress.total)}/${progress.total}` });
      return true;
    });
  }

  /** Switches the field to the built version atomically and drops the old one. */
  async backfillComplete(ref: BackfillRef): Promise<boolean> {
    const switched = await this.store.transaction(() => {
      const record = this.engine.schema.get(ref.tenant, ref.partition_scope, ref.name);
      if (record?.next?.ver !== ref.ver) return false;
      this.engine.schema.put(ref.tenant, { ...record, active: record.next, next: null, backfill: 'complete' });
      if (record.active) this.engine.retire(ref.tenant, record.active.ver);
      return true;
    });
    await this.engine.collect(ref.tenant);
    return switched;
  }

  async backfillFailed(ref: BackfillRef, reason: string): Promise<void> {
    await this.store.transaction(() => {
      const record = this.engine.schema.get(ref.tenant, ref.partition_scope, ref.name);
      if (record?.next?.ver === ref.ver) this.engine.schema.put(ref.tenant, { ...record, backfill: `failed:${reason}` });
    });
  }
}

/**
 * Whether a declaration repeats the field's current definition. A definition whose backfill failed
 * counts as changed, so declaring it again is how a caller retries that backfill.
 */
function unchanged(existing: FieldRecord | undefined, f: FieldDeclaration): boolean {
  if (!existing || existing.type !== f.type || existing.backfill.startsWith('failed:')) return false;
  const [a, b] = [existing.source, f.source];
  return 'metadata' in a ? 'metadata' in b && a.metadata === b.metadata : 'regex' in b && a.regex === b.regex;
}
