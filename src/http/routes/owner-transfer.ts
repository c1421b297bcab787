import { Readable } from 'node:stream';
import { conflict, invalidInput } from '../../errors.js';
import type { Scope } from '../../domain/scope.js';
import type { AppContext, AppDeps } from '../context.js';
import { ndjsonLines } from '../ndjson-lines.js';
import { bodyStream } from '../request-body.js';
import { exportOwner } from '../owner-export.js';
import { importOwner, type ImportReport } from '../owner-import.js';
import { idempotentWrite } from '../idempotency.js';
import type { AppRouter } from '../router.js';
import { OwnerQuerySchema } from '../schemas/memory.js';
import { ownerScope, requestedScope } from '../scope.js';
import { parseQuery } from '../validate.js';

const NDJSON = 'application/x-ndjson';

/** `GET /v1/memory/export` and `POST /v1/memory/import` (DECISIONS.md, Forgetting, erasure, export; README, Export and import). */
export function registerOwnerTransferRoutes(router: AppRouter, deps: AppDeps): void {
  router.get('/memory/export', (ctx) => {
    // A held owner (being erased or imported) exports as one that never existed: nothing.
    const scope = ownerScope(ctx, parseQuery(ctx, OwnerQuerySchema), 'read');
    ctx.type = NDJSON;
    ctx.set('Cache-Control', 'private, no-store');
    ctx.body = Readable.from(exportOwner(deps, scope, ctx.state.principal), { objectMode: false });
  });

  router.post('/memory/import', idempotentWrite(deps, 'stream'), async (ctx) => {
    // The scope as asked: the import's guard holds it, and refuses (409) an owner held for anything else.
    const scope = requestedScope(ctx.state.principal, parseQuery(ctx, OwnerQuerySchema));
    if (!ctx.is(NDJSON)) throw invalidInput(`request body must be NDJSON with Content-Type: ${NDJSON} (what GET /v1/memory/export writes)`);
    ctx.body = await importInto(ctx, deps, scope);
  });
}

/** Claims the scope, refuses one that holds anything, imports, and rolls back whatever was written when that fails. */
async function importInto(ctx: AppContext, deps: AppDeps, scope: Scope): Promise<ImportReport> {
  const guard = deps.importGuard;
  await guard.begin(scope);
  if (deps.graph.hasRecords(scope) || deps.documents?.docs.hasRecords(scope)) {
    await guard.release(scope);
    throw conflict(`owner ${scope.entityId} already holds records; an import goes only into an empty owner (erase it first)`);
  }
  try {
    const report = await importOwner(deps, scope, ndjsonLines(bodyStream(ctx), deps.importLineLimit));
    await deps.actors.importerFor(scope).importing.reload();
    await guard.release(scope);
    return report;
  } catch (error) {
    await guard.rollBack(scope).catch((err: unknown) => deps.log.error({ err }, 'import roll-back failed: the owner may hold part of the import'));
    throw error;
  }
}
