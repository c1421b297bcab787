import { bodyParser } from '@koa/bodyparser';
import Koa from 'koa';
import type { AppDeps } from './deps.js';
import { AppError, errorMiddleware } from './errors.js';
import { chatRoutes } from './routes/chat.js';
import { documentRoutes } from './routes/documents.js';
import { memoryRoutes } from './routes/memory.js';
import { searchRoutes } from './routes/search.js';
import { staticRoutes } from './routes/static.js';
import { statsRoutes } from './routes/stats.js';

/** The app without a socket: `createApp(deps).callback()` serves requests (tests call it in process). */
export function createApp(deps: AppDeps, options: { llmFetch?: typeof fetch } = {}): Koa {
  const app = new Koa();
  app.use(errorMiddleware(deps.config.engram.baseUrl, deps.log));
  app.use(
    bodyParser({
      enableTypes: ['json'],
      jsonLimit: '2mb',
      encoding: 'utf-8',
      onError: (error) => {
        if ((error as { status?: number }).status === 413) throw new AppError(413, 'payload_too_large', 'The request body is larger than 2 MB');
        throw new AppError(400, 'invalid_input', 'body: not valid JSON');
      },
    }),
  );
  for (const router of [documentRoutes(deps), searchRoutes(deps), chatRoutes(deps, options.llmFetch), statsRoutes(deps), memoryRoutes(deps), staticRoutes(deps)]) {
    app.use(router.routes());
    app.use(router.allowedMethods({ throw: true }));
  }
  app.use((ctx) => {
    throw new AppError(404, 'not_found', `No route ${ctx.method} ${ctx.path}`);
  });
  return app;
}
