import Router from '@koa/router';
import type { AppDeps } from '../deps.js';
import { DocumentListQuerySchema, DocumentPathSchema, NewDocumentSchema } from '../schemas.js';
import { parse } from '../validate.js';

/** The owner's documents: list (soft-deleted ones on request), add, read, soft-delete, restore. */
export function documentRoutes({ owner }: AppDeps): Router {
  const router = new Router({ prefix: '/api/documents' });

  router.get('/', async (ctx) => {
    const { include_deleted, limit, offset } = parse(DocumentListQuerySchema, ctx.query, 'query');
    const page = await owner.documents.list({ include_deleted, limit, offset });
    ctx.body = { documents: page.documents, count: page.count, limit, offset, has_more: page.count === limit };
  });

  router.post('/', async (ctx) => {
    const body = parse(NewDocumentSchema, ctx.request.body, 'body');
    ctx.status = 201;
    ctx.body = await owner.documents.create(body);
  });

  router.get('/:id', async (ctx) => {
    const { id } = parse(DocumentPathSchema, ctx.params, 'id');
    ctx.body = await owner.documents.get(id);
  });

  router.delete('/:id', async (ctx) => {
    const { id } = parse(DocumentPathSchema, ctx.params, 'id');
    ctx.body = await owner.documents.delete(id);
  });

  router.post('/:id/restore', async (ctx) => {
    const { id } = parse(DocumentPathSchema, ctx.params, 'id');
    ctx.body = await owner.documents.restore(id);
  });

  return router;
}
