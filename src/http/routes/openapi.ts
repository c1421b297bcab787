import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../config.js';
import { buildOpenApiDocument } from '../openapi/document.js';
import type { AppRouter } from '../router.js';

/** The service's version, which the document carries: package.json's. */
export function serviceVersion(): string {
  return (JSON.parse(readFileSync(join(projectRoot(), 'package.json'), 'utf8')) as { version: string }).version;
}

/** `GET /v1/openapi.json`: the document, built once from the routes' schemas; it takes a key (DECISIONS.md, Public routes). */
export function registerOpenApiRoute(router: AppRouter): void {
  let document: string | undefined;
  router.get('/openapi.json', (ctx) => {
    document ??= JSON.stringify(buildOpenApiDocument(serviceVersion()));
    ctx.type = 'application/json';
    ctx.body = document;
  });
}
