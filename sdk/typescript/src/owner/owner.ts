import type { Transport } from '../transport.js';
import type { BatchSearchResults, ConsolidationReport, EmbedSearchResults, ErasureAccepted, ExportLine, ImportReport, MemoryBatch, MemoryGraph, MemoryOperation, OwnerParams, RequestOptions, SearchHit, SearchResults, WriteOptions } from '../types.js';
import { OwnerContext, type OwnerScope } from './context.js';
import { Documents } from './documents.js';
import { Entities } from './entities.js';
import { Facts } from './facts.js';
import { type ImportSource, Lifecycle } from './lifecycle.js';
import { MediaMemories } from './media.js';
import { Relationships } from './relationships.js';
import { type BatchQuery, Search, type SearchParams, type VectorSearchParams } from './search.js';

/** What `graph` takes besides the start node: `depth` (1-3), `direction`, `relationship_type`, `as_of`, `include_facts`. */
export type GraphParams = Omit<OwnerParams<'getGraph'>, 'memory_entity_id'>;

/**
 * One owner's memory (a user, customer, patient or agent session), in one partition: its graph, facts,
 * documents, media and search. Cheap to create; holds no connection.
 */
export class Owner {
  readonly entities: Entities;
  readonly relationships: Relationships;
  readonly facts: Facts;
  readonly documents: Documents;
  readonly media: MediaMemories;
  private readonly ctx: OwnerContext;
  private readonly lifecycle: Lifecycle;
  private readonly searcher: Search;

  constructor(transport: Transport, scope: OwnerScope) {
    const ctx = new OwnerContext(transport, scope);
    this.ctx = ctx;
    this.lifecycle = new Lifecycle(ctx);
    this.entities = new Entities(ctx);
    this.relationships = new Relationships(ctx);
    this.facts = new Facts(ctx);
    this.documents = new Documents(ctx);
    this.media = new MediaMemories(ctx);
    this.searcher = new Search(ctx);
  }

  /** The owner's id (`entity_id`). */
  get id(): string {
    return this.ctx.scope.entity_id;
  }

  /** The partition the handle is scoped to, or undefined. */
  get partition(): string | undefined {
    return this.ctx.scope.partition;
  }

  /** Searches the owner's documents and media with every parameter of `GET /v1/search` (`mode`, `k`, …). */
  search(q: string, params: SearchParams = {}, options?: RequestOptions): Promise<SearchResults> {
    return this.searcher.query(q, params, options);
  }

  /** What the owner's memory holds about `q`: the hits of the default-mode (hybrid) search, best first. */
  async recall(q: string, params: Pick<SearchParams, 'k' | 'max_distance' | 'include_content' | 'modality'> = {}, options?: RequestOptions): Promise<SearchHit[]> {
    return (await this.searcher.query(q, params, options)).results;
  }

  /** Searches by a vector of the index's dimension (your own embedding of the query). */
  searchByVector(vector: number[], params: VectorSearchParams = {}, options?: RequestOptions): Promise<EmbedSearchResults> {
    return this.searcher.byVector(vector, params, options);
  }

  /** Up to 32 searches in one call; results in the order of the queries. */
  searchBatch(queries: BatchQuery[], options?: RequestOptions): Promise<BatchSearchResults> {
    return this.searcher.batch(queries, options);
  }

  /**
   * The neighbourhood of a node: the nodes reached over at most `depth` edges (default 1, at most 3) and every
   * edge between them, now or `as_of` an instant; `include_facts` adds the facts active then about them.
   */
  graph(memoryEntityId: string, params: GraphParams = {}, options?: RequestOptions): Promise<MemoryGraph> {
    return this.ctx.transport.json({ operationId: 'getGraph', method: 'GET', path: '/v1/memory/graph', query: this.ctx.query({ ...params, memory_entity_id: memoryEntityId }), options });
  }

  /**
   * Applies 1 to 1,000 writes in order, all or nothing, in one transaction: `upsert_entity`, `upsert_relationship`,
   * `assert_fact` (the fields of their routes), `retract_fact` (`fact_id`) and `retract_relationship`
   * (`relationship_id`). Later operations may name what earlier ones wrote by the ids the caller gave. The answer
   * holds each operation's record in order, typed per position when the operations are an array literal (else
   * tell them apart with `isEntity`, `isRelationship`, `isFact`). The first operation refused throws, its message
   * naming `operations[i]` (`NotFoundError`, `InvalidInputError`), and nothing of the batch is stored.
   */
  batch<const Ops extends readonly MemoryOperation[]>(operations: Ops & readonly NoInfer<MemoryOperation>[], options?: WriteOptions): Promise<MemoryBatch<Ops>> {
    return this.ctx.transport.json({ operationId: 'applyMemoryBatch', method: 'POST', path: '/v1/memory/batch', query: this.ctx.query(), json: { operations }, write: true, options });
  }

  /** Retracts redundant active facts (kept in history); running it twice retracts nothing the second time. */
  consolidate(options?: WriteOptions): Promise<ConsolidationReport> {
    return this.ctx.transport.json({ operationId: 'consolidate', method: 'POST', path: '/v1/memory/consolidate', query: this.ctx.query(), json: {}, write: true, options });
  }

  /** The owner's whole state as NDJSON bytes, streamed (an admin key exports regardless of readers). */
  exportStream(options?: RequestOptions): Promise<ReadableStream<Uint8Array>> {
    return this.lifecycle.exportStream(options);
  }

  /** The owner's whole state, one parsed line at a time (`for await`). */
  exportLines(options?: RequestOptions): AsyncGenerator<ExportLine, void, undefined> {
    return this.lifecycle.exportLines(options);
  }

  /** Imports an export into this owner, which must be empty; nothing is visible until it completes. */
  import(source: ImportSource, options?: WriteOptions): Promise<ImportReport> {
    return this.lifecycle.import(source, options);
  }

  /** Erases the owner and everything it holds; look the receipt up with `client.erasure(receipt_id)`. */
  erase(options?: RequestOptions): Promise<ErasureAccepted> {
    return this.lifecycle.erase(options);
  }
}
