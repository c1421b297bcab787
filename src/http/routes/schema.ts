import { AppError, invalidInput, unavailable } from '../../errors.js';
import type { FieldListing, QueryService } from '../../query/service.js';
import type { AppDeps } from '../context.js';
import type { AppRouter } from '../router.js';
import { FieldNameSchema, SchemaPutBodySchema, SchemaQuerySchema } from '../schemas/schema.js';
import { tenantScope } from '../scope.js';
import { parseBody, parseParam, parseQuery } from '../validate.js';

/** Field schema routes: tenant-wide, or one partition's fields when a partition is given. */
export function registerSchemaRoutes(router: AppRouter, deps: AppDeps): void {
  const fields = (): QueryService => {
    if (!deps.fields) throw unavailable('structured queries are not available on this node');
    return deps.fields;
  };

  router.put('/schema/fields', async (ctx) => {
    const scope = tenantScope(ctx.state.principal, parseQuery(ctx, SchemaQuerySchema).partition);
    const body = await parseBody(ctx, SchemaPutBodySchema, deps.jsonBodyLimit);
    const seen = new Set<string>();
    const declarations = body.fields.map((f, i) => {
      const partitionScope = f.partition_scope === undefined ? scope.partition : f.partition_scope;
      if (scope.partition !== null && partitionScope !== scope.partition) {
        throw invalidInput(`fields[${i}].partition_scope must be ${JSON.stringify(scope.partition)} (the request's partition) or omitted, got ${JSON.stringify(partitionScope)}`);
      }
      const id = `${partitionScope ?? ''}\u0000${f.name}`;
      if (seen.has(id)) throw invalidInput(`fields[${i}].name "${f.name}" is declared twice in one request`);
      seen.add(id);
      return { name: f.name, type: f.type, source: f.source, partition_scope: partitionScope };
    });
    const backfill = deps.jobs.backfillField?.bind(deps.jobs);
    const refs = await fields().declare(scope.tenant, declarations, (needed) => {
      if (needed && (!backfill || !deps.jobs.readiness().ready)) {
        throw unavailable('existing documents must be backfilled and the job engine is not available; retry later', undefined, 5);
      }
    });
    for (const ref of refs) {
      try {
        await backfill!(ref);
      } catch (error) {
        await fields().backfillFailed(ref, 'could not start the backfill workflow');
        throw error;
      }
    }
    ctx.body = { fields: fields().list(scope.tenant, scope.partition ?? undefined).map(fieldJson) };
  });

  router.get('/schema/fields', (ctx) => {
    const scope = tenantScope(ctx.state.principal, parseQuery(ctx, SchemaQuerySchema).partition);
    ctx.body = { fields: fields().list(scope.tenant, scope.partition ?? undefined).map(fieldJson) };
  });

  router.delete('/schema/fields/:name', async (ctx) => {
    const scope = tenantScope(ctx.state.principal, parseQuery(ctx, SchemaQuerySchema).partition);
    const name = parseParam(ctx.params.name, 'name', FieldNameSchema);
    if (!(await fields().remove(scope.tenant, scope.partition, name))) {
      throw new AppError('not_found', `field "${name}" is not declared${scope.partition === null ? ' tenant-wide' : ` in partition "${scope.partition}"`}`);
    }
    ctx.body = { fields: fields().list(scope.tenant, scope.partition ?? undefined).map(fieldJson) };
  });
}

export function fieldJson(f: FieldListing) {
  return {
    name: f.name,
    type: f.type,
    source: f.source,
    partition_scope: f.partition_scope,
    coverage: f.coverage,
    mismatch_count: f.mismatch_count,
    backfill: f.backfill,
  };
}
