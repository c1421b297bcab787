import type { z } from 'zod';
import { canRead } from '../../domain/access.js';
import type { NewDocument } from '../../domain/document-records.js';
import type { Scope } from '../../domain/scope.js';
import { AppError, notFound } from '../../errors.js';
import { scopeOf } from '../../jobs/contract.js';
import { contentId, mintId } from '../../ids.js';
import type { AppContext, AppDeps } from '../context.js';
import { idempotentWrite } from '../idempotency.js';
import { bulkCharge } from '../middleware/rate-limit.js';
import type { AppRouter } from '../router.js';
import { IdSchema } from '../schemas/common.js';
import {
  DocumentBatchBodySchema,
  DocumentBodySchema,
  DocumentDeleteQuerySchema,
  DocumentListQuerySchema,
  DocumentWriteQuerySchema,
  LIST_LIMIT_DEFAULT,
} from '../schemas/documents.js';
import { OwnerQuerySchema } from '../schemas/memory.js';
import { ownerScope } from '../scope.js';
import { documentJson } from '../serialize-documents.js';
import { documentServices, ownerDocuments } from '../services.js';
import { parseBody, parseParam, parseQuery } from '../validate.js';

export function registerDocumentRoutes(router: AppRouter, deps: AppDeps): void {
  const json = (doc: Parameters<typeof documentJson>[0]) => documentJson(doc, deps.documentFields?.(doc) ?? {});

  /** A text document to store from a validated body, or 413 naming `where` when its content is too large. */
  const newTextDocument = (scope: Scope, body: z.infer<typeof DocumentBodySchema>, readers: string[] | undefined, where: string): NewDocument => {
    const { limits } = documentServices(deps);
    const bytes = Buffer.byteLength(body.content, 'utf8');
    if (bytes > limits.documentBytes) {
      throw new AppError('payload_too_large', `${where} must be at most ${limits.documentBytes} bytes of UTF-8, got ${bytes}`);
    }
    return {
      ...body,
      doc_id: mintId('doc'),
      tenant: scope.tenant,
      entity_id: scope.entityId,
      partition: scope.partition,
      modality: 'text',
      content_type: body.content_type ?? 'text/plain',
      cid: contentId(body.content),
      readers: readers ?? null,
    };
  };

  router.post('/documents', idempotentWrite(deps, { jsonLimit: deps.jsonBodyLimit }), async (ctx) => {
    documentServices(deps);
    const { readers, ...owner } = parseQuery(ctx, DocumentWriteQuerySchema);
    const scope = ownerScope(ctx, owner, 'write');
    const body = await parseBody(ctx, DocumentBodySchema, deps.jsonBodyLimit);
    const doc = await ownerDocuments(deps, scope).insert(newTextDocument(scope, body, readers, 'content'));
    ctx.status = 201;
    ctx.body = json(doc);
  });

  router.post('/documents/batch', idempotentWrite(deps, { jsonLimit: deps.batchBodyLimit }), async (ctx) => {
    documentServices(deps);
    const scope = ownerScope(ctx, parseQuery(ctx, OwnerQuerySchema), 'write');
    const { documents } = await parseBody(ctx, DocumentBatchBodySchema, deps.batchBodyLimit);
    ctx.state.chargeRate?.(bulkCharge(documents.length));
    const inputs = documents.map(({ readers, ...body }, i) => newTextDocument(scope, body, readers, `documents[${i}].content`));
    const docs = await ownerDocuments(deps, scope).insertMany(inputs);
    ctx.status = 201;
    ctx.body = { documents: docs.map(json), count: docs.length };
  });

  router.get('/documents', (ctx) => {
    const { limit = LIST_LIMIT_DEFAULT, offset = 0, include_deleted = false, ...owner } = parseQuery(ctx, DocumentListQuerySchema);
    const scope = ownerScope(ctx, owner, 'read');
    const docs = documentServices(deps).docs.list(scope, { principal: ctx.state.principal.principal, limit, offset, includeDeleted: include_deleted });
    ctx.body = { documents: docs.map(json), count: docs.length };
  });

  router.get('/documents/:doc_id', (ctx) => {
    ctx.body = json(readableDoc(ctx, deps, ctx.params.doc_id));
  });

  router.get('/documents/:doc_id/download', (ctx) => {
    const services = documentServices(deps);
    const doc = readableDoc(ctx, deps, ctx.params.doc_id);
    if (doc.deleted_at !== null) throw notFound(`document ${doc.doc_id}`);
    const scope = scopeOf(doc);
    const bytes = doc.modality === 'text' ? undefined : services.docs.getBlob(scope, doc.doc_id);
    if (doc.modality !== 'text' && !bytes) throw notFound(`bytes of document ${doc.doc_id}`);
    ctx.body = bytes ? Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) : Buffer.from(doc.content ?? '', 'utf8');
    ctx.type = doc.modality === 'text' ? `${doc.content_type}; charset=utf-8` : doc.content_type;
    ctx.set('Content-Disposition', `attachment; filename="${safeFilename(doc.filename ?? doc.doc_id)}"`);
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Cache-Control', 'private, no-store');
  });

  router.delete('/documents/:doc_id', async (ctx) => {
    const { hard = false, ...owner } = parseQuery(ctx, DocumentDeleteQuerySchema);
    const scope = ownerScope(ctx, owner, 'write');
    const docId = parseParam(ctx.params.doc_id, 'doc_id', IdSchema);
    const part = ownerDocuments(deps, scope);
    if (hard) {
      await part.hardDelete(docId, ctx.state.principal.principal);
      ctx.status = 204;
      return;
    }
    ctx.body = json(await part.softDelete(docId, ctx.state.principal.principal));
  });

  router.post('/documents/:doc_id/restore', idempotentWrite(deps, { jsonLimit: deps.jsonBodyLimit }), async (ctx) => {
    const scope = ownerScope(ctx, parseQuery(ctx, OwnerQuerySchema), 'write');
    const docId = parseParam(ctx.params.doc_id, 'doc_id', IdSchema);
    ctx.body = json(await ownerDocuments(deps, scope).restore(docId, ctx.state.principal.principal));
  });
}

/** A document of the caller's scope that the caller may read (soft-deleted ones included), else 404. */
function readableDoc(ctx: AppContext, deps: AppDeps, rawId: unknown) {
  const scope = ownerScope(ctx, parseQuery(ctx, OwnerQuerySchema), 'read');
  const docId = parseParam(rawId, 'doc_id', IdSchema);
  const doc = documentServices(deps).docs.get(scope, docId);
  const principal = ctx.state.principal.principal;
  if (!doc || !canRead(doc.readers, principal)) throw notFound(`document ${docId}`);
  return doc;
}

function safeFilename(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 200);
}
