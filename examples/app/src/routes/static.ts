import { access } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { send } from '@koa/send';
import Router from '@koa/router';
import type { Context } from 'koa';
import type { AppDeps } from '../deps.js';
import { AppError } from '../errors.js';

/**
 * Everything the page loads comes from the app itself (it works offline): the page's own files from
 * public/, the graph-drawing library from the app's node_modules, and the repository's API reference.
 * The policy refuses any other origin, so that a forgotten CDN link fails in development, not offline.
 */
const PAGE_POLICY = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

function page(ctx: Context): void {
  ctx.set('Content-Security-Policy', PAGE_POLICY);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Referrer-Policy', 'no-referrer');
}

export function staticRoutes({ paths }: AppDeps): Router {
  const router = new Router();
  const html = (file: string) => async (ctx: Context) => {
    page(ctx);
    await send(ctx, file, { root: paths.publicDir });
  };
  router.get('/', html('index.html'));
  router.get('/memory', html('memory.html'));

  // @koa/send resolves the path inside `root` and refuses `..` and hidden files.
  router.get('/static/*file', async (ctx) => {
    page(ctx);
    const file: unknown = ctx.params.file;
    const served = await send(ctx, Array.isArray(file) ? file.join('/') : String(file ?? ''), { root: paths.publicDir, hidden: false, index: false, maxage: 60_000 });
    if (!served) throw new AppError(404, 'not_found', 'No such file');
  });

  router.get('/vendor/cytoscape.esm.min.mjs', async (ctx) => {
    page(ctx);
    await send(ctx, 'cytoscape.esm.min.mjs', { root: paths.cytoscapeDir, maxage: 3_600_000 });
    ctx.type = 'text/javascript';
  });

  router.get('/docs', async (ctx) => {
    try {
      await access(paths.apiReference);
    } catch {
      throw new AppError(404, 'not_found', 'The API reference (docs/api-reference.html of the repository) is not there: run `npm run openapi` at the repository root to build it');
    }
    // The reference is one self-contained file (Swagger UI with the document inlined): no policy of ours.
    await send(ctx, basename(paths.apiReference), { root: dirname(paths.apiReference) });
  });
  return router;
}
