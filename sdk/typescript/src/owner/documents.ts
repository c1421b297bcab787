import { followOffsets } from '../pagination.js';
import type { BodyOf, Document, DocumentList, OwnerParams, RequestOptions, WriteOptions } from '../types.js';
import { type OwnerContext, seg } from './context.js';

/** A text document to store; `readers` limits who may read it (principals). */
export type NewDocument = BodyOf<'createDocument'> & { readers?: string[] };
/** One item of a batch (`readers` per item). */
export type NewDocumentInBatch = BodyOf<'createDocuments'>['documents'][number];
export type DocumentListParams = OwnerParams<'listDocuments'>;

/** The original bytes of a document, as a stream: read it once. */
export interface DocumentDownload {
  body: ReadableStream<Uint8Array>;
  contentType: string | null;
  /** Bytes announced by the service, when it said. */
  contentLength: number | null;
}

/** An owner's documents (text, and the media records media uploads create). */
export class Documents {
  constructor(private readonly ctx: OwnerContext) {}

  /** Stores a text document (indexed for search) and returns its record. */
  create(document: NewDocument, options?: WriteOptions): Promise<Document> {
    const { readers, ...body } = document;
    return this.ctx.transport.json({ operationId: 'createDocument', method: 'POST', path: '/v1/documents', query: this.ctx.query({ readers }), json: body, write: true, options });
  }

  /** Stores 1 to 100 documents in one transaction: all or nothing. */
  async createMany(documents: NewDocumentInBatch[], options?: WriteOptions): Promise<Document[]> {
    const list: DocumentList = await this.ctx.transport.json({ operationId: 'createDocuments', method: 'POST', path: '/v1/documents/batch', query: this.ctx.query(), json: { documents }, write: true, options });
    return list.documents;
  }

  /** One document's record (never its bytes: see `download`). */
  get(docId: string, options?: RequestOptions): Promise<Document> {
    return this.ctx.transport.json({ operationId: 'getDocument', method: 'GET', path: `/v1/documents/${seg(docId)}`, query: this.ctx.query(), options });
  }

  /** One page of documents, newest first (`limit`/`offset`). */
  list(params: DocumentListParams = {}, options?: RequestOptions): Promise<DocumentList> {
    return this.ctx.transport.json({ operationId: 'listDocuments', method: 'GET', path: '/v1/documents', query: this.ctx.query(params), options });
  }

  /** Every document, page after page of `limit` (default 100), newest first (`for await`). */
  iterate(params: Omit<DocumentListParams, 'offset'> & { offset?: number } = {}, options?: RequestOptions): AsyncGenerator<Document, void, undefined> {
    const limit = params.limit ?? 100;
    return followOffsets(
      params.offset ?? 0,
      (offset) => this.list({ ...params, limit, offset }, options),
      (page) => page.documents,
      (_page, items) => items.length >= limit,
    );
  }

  /** The original bytes as a stream (ReadableStream), with their content type. */
  async download(docId: string, options?: RequestOptions): Promise<DocumentDownload> {
    const response = await this.ctx.transport.stream({ operationId: 'downloadDocument', method: 'GET', path: `/v1/documents/${seg(docId)}/download`, query: this.ctx.query(), options });
    const length = response.headers.get('content-length');
    return {
      body: response.body ?? new ReadableStream({ start: (c) => c.close() }),
      contentType: response.headers.get('content-type'),
      contentLength: length === null ? null : Number(length),
    };
  }

  /** The original bytes, in memory. */
  async downloadBytes(docId: string, options?: RequestOptions): Promise<Uint8Array> {
    const { body } = await this.download(docId, options);
    return new Uint8Array(await new Response(body).arrayBuffer());
  }

  /** Writes the original bytes into a WritableStream (a file, a socket, a browser's stream saver). */
  async downloadTo(docId: string, destination: WritableStream<Uint8Array>, options?: RequestOptions): Promise<void> {
    const { body } = await this.download(docId, options);
    await body.pipeTo(destination, options?.signal ? { signal: options.signal } : {});
  }

  /** Soft-deletes a document (restorable); with `hard: true` removes it for good (returns null). */
  async delete(docId: string, params: { hard?: boolean } = {}, options?: RequestOptions): Promise<Document | null> {
    const record = await this.ctx.transport.json<Document | undefined>({ operationId: 'deleteDocument', method: 'DELETE', path: `/v1/documents/${seg(docId)}`, query: this.ctx.query(params), options });
    return record ?? null;
  }

  /** Brings a soft-deleted document back. */
  restore(docId: string, options?: WriteOptions): Promise<Document> {
    return this.ctx.transport.json({ operationId: 'restoreDocument', method: 'POST', path: `/v1/documents/${seg(docId)}/restore`, query: this.ctx.query(), write: true, options });
  }
}
