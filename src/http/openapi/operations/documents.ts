import { z } from 'zod';
import { IdSchema } from '../../schemas/common.js';
import {
  DocumentBatchBodySchema,
  DocumentBodySchema,
  DocumentDeleteQuerySchema,
  DocumentListQuerySchema,
  DocumentWriteQuerySchema,
} from '../../schemas/documents.js';
import { MediaBodySchema } from '../../schemas/media.js';
import { OwnerQuerySchema } from '../../schemas/memory.js';
import { DocumentListSchema, DocumentSchema, MediaSchema } from '../../schemas/responses.js';
import type { Operation } from '../operation.js';

const byDocId = z.object({ doc_id: IdSchema });

/** Text documents and media of one owner. */
export const documentOperations: Operation[] = [
  {
    method: 'post',
    path: '/v1/documents',
    operationId: 'createDocument',
    tag: 'documents',
    summary: 'Store a text document',
    description: 'Indexed for search and structured queries before the answer.',
    query: DocumentWriteQuerySchema,
    body: { schema: DocumentBodySchema },
    success: { status: 201, description: 'The document record.', schema: DocumentSchema },
    writes: true,
  },
  {
    method: 'post',
    path: '/v1/documents/batch',
    operationId: 'createDocuments',
    tag: 'documents',
    summary: 'Store up to 100 text documents',
    description: 'All or nothing, in one transaction; an error names the item (`documents[17].content …`).',
    query: OwnerQuerySchema,
    body: { schema: DocumentBatchBodySchema },
    success: { status: 201, description: 'The records, in the order sent.', schema: DocumentListSchema },
    writes: true,
  },
  {
    method: 'get',
    path: '/v1/documents',
    operationId: 'listDocuments',
    tag: 'documents',
    summary: 'List documents',
    description: 'Newest first, `limit`/`offset`; soft-deleted ones with `include_deleted`.',
    query: DocumentListQuerySchema,
    success: { status: 200, description: 'A page of documents.', schema: DocumentListSchema },
  },
  {
    method: 'get',
    path: '/v1/documents/:doc_id',
    operationId: 'getDocument',
    tag: 'documents',
    summary: 'Get a document',
    query: OwnerQuerySchema,
    params: byDocId,
    success: { status: 200, description: 'The document record, never its bytes.', schema: DocumentSchema },
    errors: [404],
  },
  {
    method: 'get',
    path: '/v1/documents/:doc_id/download',
    operationId: 'downloadDocument',
    tag: 'documents',
    summary: 'Download a document\'s original bytes',
    query: OwnerQuerySchema,
    params: byDocId,
    success: {
      status: 200,
      description: 'The bytes, with the record\'s content type.',
      schema: z.string().meta({ format: 'binary' }),
      contentType: 'application/octet-stream',
    },
    errors: [404],
  },
  {
    method: 'delete',
    path: '/v1/documents/:doc_id',
    operationId: 'deleteDocument',
    tag: 'documents',
    summary: 'Delete a document',
    description: 'Soft delete (restorable) by default; `hard=true` removes bytes, vectors and index entries for good and answers 204.',
    query: DocumentDeleteQuerySchema,
    params: byDocId,
    success: { status: 200, description: 'The soft-deleted record.', schema: DocumentSchema },
    alsoNoContent: { status: 204, description: 'Hard-deleted (`hard=true`): nothing is left to show.' },
    errors: [404, 409],
  },
  {
    method: 'post',
    path: '/v1/documents/:doc_id/restore',
    operationId: 'restoreDocument',
    tag: 'documents',
    summary: 'Restore a soft-deleted document',
    query: OwnerQuerySchema,
    params: byDocId,
    success: { status: 200, description: 'The restored record.', schema: DocumentSchema },
    errors: [404],
    writes: true,
  },
  {
    method: 'post',
    path: '/v1/memory/media',
    operationId: 'uploadMedia',
    tag: 'documents',
    summary: 'Store an image or audio',
    description:
      'With `caption` (images) or `transcript` (audio) the text is indexed at once; without, a provider derives it in a durable job and the answer comes once it is indexed (422 when no provider may serve).',
    query: DocumentWriteQuerySchema,
    body: { schema: MediaBodySchema },
    success: { status: 201, description: 'The media record.', schema: MediaSchema },
    errors: [422, 502],
    writes: true,
  },
];
