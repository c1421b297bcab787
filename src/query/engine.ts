import type { Scope } from '../domain/scope.js';
import type { Store } from '../store/lmdb.js';
import { documentPage, type DocumentPage } from './exec/top-k.js';
import type { QueryContext } from './exec/filter.js';
import { groupRows, groupRowsWithHelper, type GroupResult } from './exec/groups.js';
import { GroupsHelper, type HalfOutcomes } from './exec/parallel-groups.js';
import { compileQuery, type QueryRequest } from './plan/compile.js';
import type { CompiledQuery, FieldResolver, QueryCaps } from './plan/types.js';
import { SchemaRegistry } from './schema/registry.js';
import { and, type DocSet } from './storage/docset.js';
import { collect, retire } from './storage/gc.js';
import { openIndexDb, type IndexDb } from './storage/layout.js';
import { IndexReader } from './storage/reader.js';
import { TenantStates } from './storage/tenant-state.js';
import { FieldWriter } from './storage/writer.js';

/** A request compiled against one tenant's (and partition's) fields, with the name resolution it used. */
export interface CompiledRequest {
  query: CompiledQuery;
  resolve: FieldResolver;
}

/** What a compiled query yields, in index form; the union carries its own query, so each arm is typed. */
export type ExecResult =
  | { mode: 'documents'; query: Extract<CompiledQuery, { mode: 'documents' }>; page: DocumentPage }
  | { mode: 'groups'; query: Extract<CompiledQuery, { mode: 'groups' }>; result: GroupResult };

/** Where a document number's record lives: its owner scope and id. */
export interface DocumentRef {
  scope: Scope;
  docId: string;
}

/**
 * The engine over one store: its two databases, the schema registry and the writer, and the raw
 * operations on them (compile, execute, locate, collect). Internal to src/query: `QueryService` is the
 * door; unit tests and the bench build their own engine over the same store to look inside.
 */
export class QueryEngine {
  readonly db: IndexDb;
  readonly schema: SchemaRegistry;
  readonly writer: FieldWriter;
  readonly states: TenantStates;

  /** Gathers half of each large aggregation on a second thread (null: every query runs on the caller's). */
  private readonly helper: GroupsHelper | null;

  constructor(
    private readonly store: Store,
    readonly caps: QueryCaps,
    options: { helperThread?: boolean } = {},
  ) {
    this.db = openIndexDb(store);
    this.helper = options.helperThread ? new GroupsHelper(store.path) : null;
    this.schema = new SchemaRegistry(this.db);
    this.states = new TenantStates(this.db);
    this.writer = new FieldWriter(this.db, this.schema, this.states);
  }

  /** A reader of the latest committed snapshot; it caches column chunks, so use one per operation. */
  reader(): IndexReader {
    return new IndexReader(this.db);
  }

  compile(tenant: string, partition: string | null, request: QueryRequest): CompiledRequest {
    const resolve = this.schema.resolver(tenant, partition);
    return { query: compileQuery(request, resolve, this.caps.maxGroups), resolve };
  }

  /** `reader` may be passed to count the index entries a query touches (the bench does). */
  execute(ctx: QueryContext, { query, resolve }: CompiledRequest, reader = this.reader()): ExecResult {
    return query.mode === 'documents'
      ? { mode: 'documents', query, page: documentPage(reader, ctx, query, resolve, this.caps.maxScanned) }
      : { mode: 'groups', query, result: groupRows(reader, ctx, query, this.caps) };
  }

  /** `execute`, with a large aggregation's later half gathered on the helper thread (the same answer). */
  async run(ctx: QueryContext, compiled: CompiledRequest, reader = this.reader()): Promise<ExecResult> {
    const { query } = compiled;
    if (query.mode === 'documents' || !this.helper) return this.execute(ctx, compiled, reader);
    return { mode: 'groups', query, result: await groupRowsWithHelper(reader, ctx, query, this.caps, this.helper, () => this.reader()) };
  }

  /** What became of large aggregations' later halves (all 0 without the helper thread). */
  halfOutcomes(): HalfOutcomes {
    return { ...(this.helper?.outcomes ?? { used: 0, changed: 0, failed: 0 }) };
  }

  /** Stops the helper thread. */
  close(): Promise<void> {
    return this.helper?.close() ?? Promise.resolve();
  }

  /** Where a document number's record lives (live documents only; null otherwise). */
  locate(tenant: string, docNo: number, reader = this.reader()): DocumentRef | null {
    const docId = reader.value(tenant, 'b.doc_id', 'string', docNo) as string | null;
    if (docId === null) return null;
    const entityId = reader.value(tenant, 'b.entity_id', 'string', docNo) as string;
    const partition = reader.value(tenant, 'b.partition', 'string', docNo) as string | null;
    return { scope: { tenant, partition, entityId }, docId };
  }

  /** Live documents of the tenant, or of one partition scope (null: the whole tenant). */
  liveIn(reader: IndexReader, tenant: string, scope: string | null): DocSet {
    const live = reader.liveSet(tenant);
    return scope === null ? live : and(live, reader.posting(tenant, 'b.partition', scope));
  }

  /** Marks a version's entries for deletion; call inside the transaction that stops using it. */
  retire(tenant: string, ver: string): void {
    retire(this.db, tenant, ver);
  }

  /** Deletes retired versions' entries, in bounded transactions. */
  collect(tenant: string, pageKeys?: number): Promise<void> {
    return collect(this.store, this.db, tenant, pageKeys);
  }
}
