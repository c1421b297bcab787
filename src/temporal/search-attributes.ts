import { isGrpcServiceError, type Connection } from '@temporalio/client';
import { defineSearchAttributeKey, SearchAttributeType, TypedSearchAttributes } from '@temporalio/common';
import type { Scope, TenantScope } from '../domain/scope.js';

/** An owner scope, or a tenant-wide one for jobs that are not about one owner (e.g. a field backfill). */
export type JobScope = Scope | TenantScope;

/**
 * Custom search attributes on every Engram job, so an operator can list one owner's runs in the UI
 * (`EngramTenant = "acme" AND EngramOwner = "user-1"`) or one kind of job (`EngramJob = "consolidate"`).
 * They hold identifiers only (job name, tenant, partition, owner entity id), never owner content.
 */
export const SEARCH_ATTRIBUTES = {
  job: defineSearchAttributeKey('EngramJob', SearchAttributeType.KEYWORD),
  tenant: defineSearchAttributeKey('EngramTenant', SearchAttributeType.KEYWORD),
  partition: defineSearchAttributeKey('EngramPartition', SearchAttributeType.KEYWORD),
  owner: defineSearchAttributeKey('EngramOwner', SearchAttributeType.KEYWORD),
} as const;

/** `--search-attribute` values for `temporal server start-dev` (NAME=Type). */
export function searchAttributeFlags(): string[] {
  return Object.values(SEARCH_ATTRIBUTES).map((key) => `${key.name}=Keyword`);
}

export function jobSearchAttributes(job: string, scope: JobScope): TypedSearchAttributes {
  const pairs = [
    { key: SEARCH_ATTRIBUTES.job, value: job },
    { key: SEARCH_ATTRIBUTES.tenant, value: scope.tenant },
  ];
  if ('entityId' in scope) pairs.push({ key: SEARCH_ATTRIBUTES.owner, value: scope.entityId });
  if (scope.partition !== null) pairs.push({ key: SEARCH_ATTRIBUTES.partition, value: scope.partition });
  return new TypedSearchAttributes(pairs);
}

/**
 * The workflow id of a job for one scope: `<job>/<tenant>/<partition>/<entity_id>` (tenant-wide jobs
 * stop after the partition), each part URI-encoded so a `/` inside an id cannot shift the parts; an
 * absent partition is an empty part. One id per job and scope is what keeps two runs of a job on one
 * scope from overlapping.
 */
export function jobWorkflowId(job: string, scope: JobScope): string {
  const part = encodeURIComponent;
  const base = `${job}/${part(scope.tenant)}/${part(scope.partition ?? '')}`;
  return 'entityId' in scope ? `${base}/${part(scope.entityId)}` : base;
}

/** The memo shown on the run in the UI: identifiers of the scope (partition only when set), no owner content. */
export function jobMemo(job: string, scope: JobScope): Record<string, string> {
  const memo: Record<string, string> = { job, tenant: scope.tenant };
  if ('entityId' in scope) memo.entity_id = scope.entityId;
  if (scope.partition !== null) memo.partition = scope.partition;
  return memo;
}

// Wire values of temporal.api.enums.v1.IndexedValueType and gRPC status codes (stable protocol numbers).
const INDEXED_VALUE_TYPE_KEYWORD = 2;
const GRPC_UNAVAILABLE = 14;
const GRPC_DEADLINE_EXCEEDED = 4;

/**
 * Makes sure the cluster knows Engram's search attributes: true when they exist or were added, false
 * when the cluster refuses to add them (jobs then run with the memo only). Throws when the cluster
 * cannot be reached, so the caller can ask again later.
 */
export async function ensureSearchAttributes(connection: Connection, namespace: string, timeoutMs: number): Promise<boolean> {
  const deadline = () => Date.now() + timeoutMs;
  const listed = await connection.withDeadline(deadline(), () => connection.operatorService.listSearchAttributes({ namespace }));
  const known = new Set(Object.keys(listed.customAttributes ?? {}));
  const missing = Object.values(SEARCH_ATTRIBUTES).filter((key) => !known.has(key.name));
  if (missing.length === 0) return true;
  const searchAttributes = Object.fromEntries(missing.map((key) => [key.name, INDEXED_VALUE_TYPE_KEYWORD]));
  try {
    await connection.withDeadline(deadline(), () => connection.operatorService.addSearchAttributes({ namespace, searchAttributes }));
    return true;
  } catch (error) {
    if (isGrpcServiceError(error) && (error.code === GRPC_UNAVAILABLE || error.code === GRPC_DEADLINE_EXCEEDED)) throw error;
    return false;
  }
}
