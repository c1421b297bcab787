import Router from '@koa/router';
import type { AppState } from './context.js';

export type AppRouter = Router<AppState>;

export function createRouter(): AppRouter {
  return new Router<AppState>();
}
