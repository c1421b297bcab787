import { formatNullableTimestamp as tsOrNull, formatTimestamp as ts } from '../../domain/time.js';
import { notFound, unavailable } from '../../errors.js';
import type { ErasureReceipt } from '../../store/owner-holds.js';
import type { AppDeps } from '../context.js';
import type { AppRouter } from '../router.js';
import { IdSchema } from '../schemas/common.js';
import { OwnerQuerySchema, ReceiptQuerySchema } from '../schemas/memory.js';
import { requestedScope, tenantScope } from '../scope.js';
import { parseParam, parseQuery } from '../validate.js';

/**
 * `DELETE /v1/memory?entity_id=…`: erases the owner (DECISIONS.md, Forgetting, erasure, export). The
 * tombstone commits before the answer, 202 with the receipt; the owner reads as nonexistent and refuses
 * writes from then on. A repeat while the erasure is under way answers the same receipt.
 * `GET /v1/memory/erasures/{receipt_id}`: the receipt, in the caller's tenant (and partition, when the key
 * is multi-tenant or the caller names one); elsewhere 404.
 */
export function registerErasureRoutes(router: AppRouter, deps: AppDeps): void {
  const erasures = () => {
    if (!deps.erasures) throw unavailable('owner erasure is not available on this node');
    return deps.erasures;
  };

  router.delete('/memory', async (ctx) => {
    const scope = requestedScope(ctx.state.principal, parseQuery(ctx, OwnerQuerySchema));
    const receipt = await erasures().request(scope);
    ctx.status = 202;
    ctx.body = { receipt_id: receipt.receipt_id, state: receipt.state };
  });

  router.get('/memory/erasures/:receipt_id', (ctx) => {
    const { partition } = parseQuery(ctx, ReceiptQuerySchema);
    const scope = tenantScope(ctx.state.principal, partition);
    const receiptId = parseParam(ctx.params.receipt_id, 'receipt_id', IdSchema);
    const receipt = erasures().receipt(scope.tenant, receiptId);
    if (!receipt || (partition !== undefined && receipt.partition !== scope.partition)) throw notFound(`erasure ${receiptId}`);
    ctx.body = receiptJson(receipt);
  });
}

/** The receipt as the API shows it: state, counts and times, never the owner. */
function receiptJson(r: ErasureReceipt) {
  return { receipt_id: r.receipt_id, state: r.state, counts: r.counts, started_at: ts(r.started_at), finished_at: tsOrNull(r.finished_at) };
}
