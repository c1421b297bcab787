import { EngramError } from './errors.js';
import { Owner } from './owner/owner.js';
import { sleep } from './retry.js';
import { followOffsets } from './pagination.js';
import type { DocumentQuery, GroupQuery } from './query-types.js';
import type { Transport } from './transport.js';
import type { BodyOf, Document, ErasureReceipt, Field, QueryDocuments, QueryGroups, RequestOptions } from './types.js';

export type FieldDeclaration = BodyOf<'declareFields'>['fields'][number];

/** Declared fields: typed, indexed views over values documents already carry. */
export class Schema {
  constructor(private readonly transport: Transport, private readonly partition: string | undefined) {}

  /** Declares or re-declares fields (others stay); returns the whole declared set. Starts a backfill. */
  async declare(fields: FieldDeclaration[], options?: RequestOptions): Promise<Field[]> {
    const list = await this.transport.json<{ fields: Field[] }>({ operationId: 'declareFields', method: 'PUT', path: '/v1/schema/fields', query: { partition: this.partition }, json: { fields }, options });
    return list.fields;
  }

  /** Every declared field with its coverage, mismatches and backfill progress. */
  async list(options?: RequestOptions): Promise<Field[]> {
    const list = await this.transport.json<{ fields: Field[] }>({ operationId: 'listFields', method: 'GET', path: '/v1/schema/fields', query: { partition: this.partition }, options });
    return list.fields;
  }

  /** Removes one field; returns the fields that remain. */
  async remove(name: string, options?: RequestOptions): Promise<Field[]> {
    const list = await this.transport.json<{ fields: Field[] }>({ operationId: 'removeField', method: 'DELETE', path: `/v1/schema/fields/${encodeURIComponent(name)}`, query: { partition: this.partition }, options });
    return list.fields;
  }

  /**
   * Waits until the named fields (default: every declared one) report backfill `complete`, polling the
   * listing; throws when a backfill fails or the wait exceeds `timeoutMs` (default 120000).
   */
  async waitForBackfill(names?: string[], wait: { pollMs?: number; timeoutMs?: number } & RequestOptions = {}): Promise<Field[]> {
    const deadline = Date.now() + (wait.timeoutMs ?? 120_000);
    for (;;) {
      const fields = await this.list(wait);
      const watched = fields.filter((f) => names === undefined || names.includes(f.name));
      const missing = (names ?? []).filter((n) => !fields.some((f) => f.name === n));
      if (missing.length > 0) throw new EngramError(`waitForBackfill: ${missing.join(', ')} not declared`);
      const failed = watched.find((f) => f.backfill.startsWith('failed'));
      if (failed) throw new EngramError(`the backfill of field ${failed.name} failed: ${failed.backfill}`);
      if (watched.every((f) => f.backfill === 'complete')) return fields;
      if (Date.now() > deadline) throw new EngramError(`waitForBackfill: not complete after ${wait.timeoutMs ?? 120_000} ms (${watched.map((f) => `${f.name}: ${f.backfill}`).join(', ')})`);
      await sleep(wait.pollMs ?? 500, wait.signal);
    }
  }
}

/**
 * What a key reaches tenant-wide, or within one partition: the field schema, structured queries,
 * erasure receipts, and owner handles.
 */
export class TenantScope {
  /** The field schema of this scope (on a partition handle: that partition's). */
  readonly schema: Schema;

  constructor(protected readonly transport: Transport, protected readonly scopePartition: string | undefined) {
    this.schema = new Schema(transport, scopePartition);
  }

  /** A handle on one owner's memory (in this scope's partition unless you name another). */
  owner(entityId: string, options: { partition?: string } = {}): Owner {
    return new Owner(this.transport, { entity_id: entityId, partition: options.partition ?? this.scopePartition });
  }

  /** A structured query: Mode B (groups) when `aggregate` is present, else Mode A (a page of documents). */
  query(request: GroupQuery, options?: RequestOptions): Promise<QueryGroups>;
  query(request?: DocumentQuery, options?: RequestOptions): Promise<QueryDocuments>;
  query(request: DocumentQuery | GroupQuery = {}, options?: RequestOptions): Promise<QueryDocuments | QueryGroups> {
    return this.transport.json({ operationId: 'query', method: 'POST', path: '/v1/query', query: { partition: this.scopePartition }, json: request, options });
  }

  /** Every document a Mode A query matches, page after page (`offset += limit` while `has_more`). */
  queryIterate(request: DocumentQuery = {}, options?: RequestOptions): AsyncGenerator<Document, void, undefined> {
    return followOffsets(
      request.offset ?? 0,
      (offset) => this.query({ ...request, offset }, options),
      (page) => page.documents,
      (page) => page.has_more,
    );
  }

  /** An erasure's receipt: its state and counts, never owner content. */
  erasure(receiptId: string, options?: RequestOptions): Promise<ErasureReceipt> {
    return this.transport.json({ operationId: 'getErasure', method: 'GET', path: `/v1/memory/erasures/${encodeURIComponent(receiptId)}`, query: { partition: this.scopePartition }, options });
  }
}
