/**
 * @engram-memory/sdk: the TypeScript client of Engram. Runs on Node 20+ and in browsers (fetch only);
 * file-path helpers live in `@engram-memory/sdk/node`.
 */
export { Engram, ConfigurationError, type ClientOptions } from './client.js';
export { TenantScope, Schema, type FieldDeclaration } from './tenant.js';
export { Owner, type GraphParams } from './owner/owner.js';
export type { OwnerScope } from './owner/context.js';
export type { Entities, EntityListParams } from './owner/entities.js';
export type { Relationships, RelationshipListParams } from './owner/relationships.js';
export type { Facts, FactListParams, FactHistoryParams } from './owner/facts.js';
export type { Documents, DocumentDownload, DocumentListParams, NewDocument, NewDocumentInBatch } from './owner/documents.js';
export { UnknownMediaTypeError, type MediaMemories, type MediaUpload } from './owner/media.js';
export type { SearchParams, VectorSearchParams, BatchQuery } from './owner/search.js';
export type { ImportSource } from './owner/lifecycle.js';
export type { Filter, FilterLeaf, Aggregate, DocumentQuery, GroupQuery } from './query-types.js';
export type { Hooks, RequestInfo, ResponseInfo, RetryInfo } from './transport.js';
export * from './errors.js';
export * from './types.js';
export { isEntity, isRelationship, isFact } from './records.js';
export { sniffContentType, contentTypeFromName, modalityOf } from './media-types.js';
export { VERSION, USER_AGENT } from './version.js';
export type { components, operations, paths } from './generated/openapi.js';
