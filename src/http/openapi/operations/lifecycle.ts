import { z } from 'zod';
import { IdSchema } from '../../schemas/common.js';
import { ImportLineSchema } from '../../schemas/import.js';
import { OwnerQuerySchema, ReceiptQuerySchema } from '../../schemas/memory.js';
import { ErasureAcceptedSchema, ErasureReceiptSchema, ForgetReportSchema, ImportReportSchema } from '../../schemas/responses.js';
import type { Operation } from '../operation.js';

const NDJSON = 'application/x-ndjson';

/** Forgetting an entity, erasing an owner, and moving an owner's whole memory out and in. */
export const lifecycleOperations: Operation[] = [
  {
    method: 'delete',
    path: '/v1/memory/entities/:id',
    operationId: 'forgetEntity',
    tag: 'lifecycle',
    summary: 'Forget an entity',
    description: 'Erases the node, every edge from or to it and every fact about them, with their history (not a retraction).',
    query: OwnerQuerySchema,
    params: z.object({ id: IdSchema.meta({ description: 'The entity\'s `memory_entity_id`.' }) }),
    success: { status: 200, description: 'How many records were erased.', schema: ForgetReportSchema },
    errors: [404, 409],
  },
  {
    method: 'delete',
    path: '/v1/memory',
    operationId: 'eraseOwner',
    tag: 'lifecycle',
    summary: 'Erase an owner',
    description:
      'Writes a tombstone, then erases everything the owner holds in a durable job. From the answer on, the owner reads as one that never existed and writes to it are 409 until the erasure is complete.',
    query: OwnerQuerySchema,
    success: { status: 202, description: 'The erasure\'s receipt.', schema: ErasureAcceptedSchema },
    errors: [409],
  },
  {
    method: 'get',
    path: '/v1/memory/erasures/:receipt_id',
    operationId: 'getErasure',
    tag: 'lifecycle',
    summary: 'Get an erasure receipt',
    description: 'State and counts, never owner content.',
    query: ReceiptQuerySchema,
    params: z.object({ receipt_id: IdSchema }),
    success: { status: 200, description: 'The receipt.', schema: ErasureReceiptSchema },
    errors: [404],
  },
  {
    method: 'get',
    path: '/v1/memory/export',
    operationId: 'exportOwner',
    tag: 'lifecycle',
    summary: 'Export an owner',
    description:
      'Streams NDJSON, one `{ "type", "record" }` per line: entities, relationships, facts with their history, documents with readers, bytes (base64) and vectors.',
    query: OwnerQuerySchema,
    success: { status: 200, description: 'The owner\'s records, one JSON object per line.', schema: ImportLineSchema, contentType: NDJSON },
  },
  {
    method: 'post',
    path: '/v1/memory/import',
    operationId: 'importOwner',
    tag: 'lifecycle',
    summary: 'Import an owner',
    description:
      'Takes what the export writes into an empty owner (else 409): ids, timestamps and history are kept; nothing is visible until the import completes, and a failed import leaves the owner empty.',
    query: OwnerQuerySchema,
    body: { schema: ImportLineSchema, contentType: NDJSON, description: 'The export\'s lines, one JSON object per line.' },
    success: { status: 200, description: 'What was imported.', schema: ImportReportSchema },
    writes: true,
  },
];
