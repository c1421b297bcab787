import type { StoredDocument } from '../../domain/documents.js';
import { toJsonValue } from '../../query/schema/coerce.js';
import type { DocValue, ResolvedField } from '../../query/plan/types.js';
import { invalidInput, unavailable } from '../../errors.js';
import type { GroupResult } from '../../query/exec/top-k.js';
import { FieldReader } from '../../query/storage/reader.js';
import type { AppDeps } from '../context.js';
import type { AppRouter } from '../router.js';
import { QueryBodySchema, QueryQuerySchema } from '../schemas/query.js';
import { tenantScope } from '../scope.js';
import { documentJson } from '../serialize-documents.js';
import { parseBody, parseQuery } from '../validate.js';

/** `POST /v1/query`: Mode A (a page of documents) without `aggregate`, Mode B (groups) with it. */
export function registerQueryRoute(router: AppRouter, deps: AppDeps): void {
  router.post('/query', async (ctx) => {
    const fields = deps.fields;
    if (!fields) throw unavailable('structured queries are not available on this node');
    const fromQuery = parseQuery(ctx, QueryQuerySchema).partition;
    const { partition: fromBody, ...request } = await parseBody(ctx, QueryBodySchema, deps.jsonBodyLimit);
    if (fromQuery !== undefined && fromBody !== undefined && fromQuery !== fromBody) {
      throw invalidInput(`partition is given twice with different values (query ${JSON.stringify(fromQuery)}, body ${JSON.stringify(fromBody)})`);
    }
    const scope = tenantScope(ctx.state.principal, fromQuery ?? fromBody);
    const compiled = fields.compile(scope.tenant, scope.partition, request);
    const reader = new FieldReader(fields.db);
    const result = fields.run({ tenant: scope.tenant, partition: scope.partition, principal: ctx.state.principal.principal }, compiled, reader);
    if (result.mode === 'groups') {
      if (compiled.query.mode !== 'groups') throw new Error('mode mismatch');
      ctx.body = groupsJson(result.result, compiled.query.groupBy, compiled.query.aggregates);
      return;
    }
    const { docNos, total } = result.page;
    const docs = fields
      .locateMany(scope.tenant, docNos, reader)
      .map((key) => (key ? (deps.store.records.get(key) as StoredDocument | undefined) : undefined))
      .filter((doc): doc is StoredDocument => doc !== undefined);
    const offset = compiled.query.mode === 'documents' ? compiled.query.offset : 0;
    ctx.body = {
      documents: docs.map((doc) => documentJson(doc, fields.documentFields(doc))),
      total,
      has_more: offset + docNos.length < total,
    };
  });
}

function groupsJson(result: GroupResult, groupBy: ResolvedField[], aggregates: Array<{ as: string; op: string; field: ResolvedField | null }>) {
  const value = (v: DocValue, field: ResolvedField | null) => (v === null || field === null ? v : toJsonValue(v, field.type));
  return {
    groups: result.rows.map((row) => ({
      keys: Object.fromEntries(groupBy.map((f, i) => [f.name, value(row.keys[i] ?? null, f)])),
      aggregates: Object.fromEntries(
        aggregates.map((a, i) => [a.as, (a.op === 'min' || a.op === 'max') && a.field?.type === 'datetime' ? value(row.values[i] ?? null, a.field) : (row.values[i] ?? null)]),
      ),
    })),
    total_groups: result.totalGroups,
    scanned: result.scanned,
  };
}
