import type { components, operations } from './generated/openapi.js';

/** Records and envelopes of the API, generated from docs/openapi.json. */
export type Schemas = components['schemas'];
export type Entity = Schemas['Entity'];
export type EntityList = Schemas['EntityList'];
export type ForgetReport = Schemas['ForgetReport'];
export type Relationship = Schemas['Relationship'];
export type RelationshipList = Schemas['RelationshipList'];
export type Fact = Schemas['Fact'];
export type FactList = Schemas['FactList'];
export type MemoryGraph = Schemas['MemoryGraph'];
export type UpsertEntityOperation = Schemas['UpsertEntityOperation'];
export type UpsertRelationshipOperation = Schemas['UpsertRelationshipOperation'];
export type AssertFactOperation = Schemas['AssertFactOperation'];
export type RetractFactOperation = Schemas['RetractFactOperation'];
export type RetractRelationshipOperation = Schemas['RetractRelationshipOperation'];
/** One write of `owner.batch`, told apart by `op`: the fields of its single route, or the id its DELETE takes. */
export type MemoryOperation = UpsertEntityOperation | UpsertRelationshipOperation | AssertFactOperation | RetractFactOperation | RetractRelationshipOperation;
/** A record a batch answers: the entity, relationship or fact an operation wrote. */
export type MemoryRecord = Entity | Relationship | Fact;
/** The record an operation answers: an entity for `upsert_entity`, a relationship for `upsert_relationship` and `retract_relationship`, a fact for the others. */
export type RecordOf<O extends MemoryOperation> = O extends { op: 'upsert_entity' } ? Entity : O extends { op: 'upsert_relationship' | 'retract_relationship' } ? Relationship : Fact;
export type MemoryBatchResult = Schemas['MemoryBatchResult'];
/**
 * What `owner.batch` answers: each operation's record in operation order. For operations written as an
 * array literal, `results[i]` has the type of operation i's record; for any other array, `MemoryRecord`.
 */
export type MemoryBatch<Ops extends readonly MemoryOperation[] = MemoryOperation[]> = Omit<MemoryBatchResult, 'results'> & {
  results: { -readonly [K in keyof Ops]: RecordOf<Ops[K]> };
};
export type ConsolidationReport = Schemas['ConsolidationReport'];
export type ErasureAccepted = Schemas['ErasureAccepted'];
export type ErasureReceipt = Schemas['ErasureReceipt'];
export type ExportLine = Schemas['ExportLine'];
export type ImportReport = Schemas['ImportReport'];
export type Document = Schemas['Document'];
export type DocumentList = Schemas['DocumentList'];
export type Media = Schemas['Media'];
export type SearchResults = Schemas['SearchResults'];
export type SearchHit = Schemas['SearchHit'];
export type SearchMode = Schemas['SearchMode'];
export type EmbedSearchResults = Schemas['EmbedSearchResults'];
export type BatchSearchResults = Schemas['BatchSearchResults'];
export type Field = Schemas['Field'];
export type FieldList = Schemas['FieldList'];
export type QueryDocuments = Schemas['QueryDocuments'];
export type QueryGroups = Schemas['QueryGroups'];
export type QueryGroup = Schemas['QueryGroup'];
export type Scalar = Schemas['Scalar'];
export type ScalarMap = Schemas['ScalarMap'];
export type Status = Schemas['Status'];
export type ServiceIndex = Schemas['Index'];
export type ErrorBody = Schemas['Error'];

/** The operations of the document, by operationId. */
export type OperationId = keyof operations;

/** The JSON body an operation takes. */
export type BodyOf<Op extends OperationId> = operations[Op] extends {
  requestBody?: { content: { 'application/json': infer B } };
}
  ? B
  : never;

/** The query parameters of an operation. */
export type QueryOf<Op extends OperationId> = NonNullable<operations[Op]['parameters']['query']>;

/** Query parameters of an owner route, less the scope (`entity_id`, `partition`) the handle supplies. */
export type OwnerParams<Op extends OperationId> = Omit<QueryOf<Op>, 'entity_id' | 'partition'>;

/** Per-call options of every SDK method. */
export interface RequestOptions {
  /** Aborts the call (and its retries). */
  signal?: AbortSignal;
  /** This call's timeout per attempt, in milliseconds (default: the client's). */
  timeoutMs?: number;
  /** This call's retry budget (default: the client's). */
  maxRetries?: number;
}

/** Options of a call that writes: the Idempotency-Key is generated once per call unless you pass your own. */
export interface WriteOptions extends RequestOptions {
  /** 1 to 255 printable characters; the same key on every retry, so the write is applied once. */
  idempotencyKey?: string;
}
