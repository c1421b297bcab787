import { readFileSync } from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { createRoutes } from '../../src/http/app.js';
import { postKind } from '../../src/http/idempotency.js';
import type { AppDeps } from '../../src/http/context.js';
import { buildOpenApiDocument, openApiPath, OPERATIONS } from '../../src/http/openapi/document.js';
import { serviceVersion } from '../../src/http/routes/openapi.js';

/** "METHOD /path/{param}" for every route the router serves (HEAD comes with GET and is not an operation). */
function routerOperations(): string[] {
  // Registering routes reads no dependency: they are used when a request comes.
  const root = createRoutes({} as AppDeps);
  return root.stack.flatMap((layer) => layer.methods.filter((m) => m !== 'HEAD').map((m) => `${m} ${openApiPath(String(layer.path))}`)).sort();
}

function documentOperations(doc: { paths: Record<string, Record<string, any>> }): string[] {
  return Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`)).sort();
}

describe('the OpenAPI document', () => {
  // The document as JSON: what is served and committed.
  const doc = JSON.parse(JSON.stringify(buildOpenApiDocument(serviceVersion()))) as { paths: Record<string, Record<string, any>>; security: unknown };

  it('describes exactly the routes the router serves: none missing, none invented', () => {
    const served = routerOperations();
    const documented = documentOperations(doc);
    expect(served.filter((op) => !documented.includes(op))).toEqual([]);
    expect(documented.filter((op) => !served.includes(op))).toEqual([]);
    expect(served.length).toBeGreaterThan(30);
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('is what docs/openapi.json holds (run `npm run openapi` after changing a route or schema)', () => {
    const committed = JSON.parse(readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8'));
    expect(committed).toEqual(doc);
  });

  it('names every operation once, documents every error status with the error body, and asks a key of all but /status', () => {
    const ids = OPERATIONS.map((op) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item as Record<string, any>)) {
        expect(op.security, `${method} ${path}`).toEqual(path === '/status' ? [] : undefined);
        if (path === '/status') continue;
        for (const status of ['400', '401', '429', '500', '503']) expect(op.responses[status], `${method} ${path} ${status}`).toBeDefined();
      }
    }
    expect(doc.security).toEqual([{ bearerAuth: [] }]);
  });

  it('takes an Idempotency-Key on exactly the POSTs the router declares writes, and on no read', () => {
    const root = createRoutes({} as AppDeps);
    const writes = root.stack.filter((layer) => postKind(layer) === 'write').map((layer) => openApiPath(String(layer.path))).sort();
    const keyed = (method: string, path: string) =>
      ((doc.paths[path] as any)[method].parameters ?? []).some((p: { in: string; name: string }) => p.in === 'header' && p.name === 'Idempotency-Key');
    expect(writes).toContain('/v1/memory/facts');
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const method of Object.keys(item)) expect(keyed(method, path), `${method} ${path}`).toBe(method === 'post' && writes.includes(path));
    }
  });
});
