import type { Principal } from '../../auth/keys.js';
import type { Scope } from '../../domain/scope.js';
import { AppError, conflict, invalidInput } from '../../errors.js';
import type { NodePlacement } from '../../placement/node-placement.js';
import type { MoveScope, ScopeTransferDeps } from '../../placement/transfer-port.js';
import type { TransferState } from '../../placement/scope-transfers.js';
import { createRouter, type AppRouter } from '../router.js';
import { TransferOwnersQuerySchema, TransferPutBodySchema, TransferQuerySchema } from '../schemas/scope-transfer.js';
import { parseBody, parseQuery } from '../validate.js';

/** From state → the states a move may take it to. `none` ends or aborts a move whatever the state. */
const NEXT: Record<TransferState, readonly TransferState[]> = {
  none: ['frozen', 'receiving'],
  frozen: [],
  receiving: ['received'],
  received: [],
};

/**
 * The operator's routes of a move (docs/scale-out.md, Moving a scope), under `/v1/admin/scopes`, for an
 * admin key, about the scope of its tenant (and `partition`, for a tenant placed by partition). They are
 * for `npm run move-scope`, not for applications, so they are not in the OpenAPI document:
 * - `GET|PUT transfer`: where the scope stands on this node (`none`, `frozen`, `receiving`, `received`),
 *   the node the map names, and how many of its owners have work in flight;
 * - `GET owners`: the owners this node holds of the scope, a page at a time;
 * - `DELETE copy`: removes this node's copy of a scope it no longer serves (after the switch), never the
 *   copy it serves.
 */
export function createScopeTransferRouter(deps: ScopeTransferDeps): AppRouter {
  const router = createRouter();
  router.prefix('/v1/admin/scopes');
  const { placement } = deps;

  const status = (scope: MoveScope) => {
    const placed = placedBy(scope);
    return {
      node: placement.nodeId,
      host: placement.hostOf(placed),
      state: placement.transferOf(placed),
      busy_owners: deps.busyOwners(scope),
      held_owners: deps.heldOwners(scope),
    };
  };

  router.get('/transfer', (ctx) => {
    ctx.body = status(moveScope(ctx.state.principal, parseQuery(ctx, TransferQuerySchema).partition, placement));
  });

  router.put('/transfer', async (ctx) => {
    const scope = moveScope(ctx.state.principal, parseQuery(ctx, TransferQuerySchema).partition, placement);
    const { state } = await parseBody(ctx, TransferPutBodySchema, deps.jsonBodyLimit);
    const placed = placedBy(scope);
    const from = placement.transferOf(placed);
    if (state !== from && state !== 'none' && !NEXT[from].includes(state)) throw conflict(`this scope is ${from} on this node; it cannot become ${state}`);
    if (state === 'frozen' && from !== 'frozen') {
      if (!placement.serves(placed)) throw conflict(`this node (${placement.nodeId}) does not serve this scope: node ${placement.hostOf(placed)} does`);
      if (deps.heldOwners(scope) > 0) throw conflict('owners of this scope are being erased or imported; move it once they are done');
    }
    if (state === 'receiving' && from !== 'receiving' && placement.hostOf(placed) === placement.nodeId) {
      throw conflict(`this node (${placement.nodeId}) already hosts this scope`);
    }
    placement.transfers!.set(placement.keyOf(placed), state);
    ctx.body = status(scope);
  });

  router.get('/owners', (ctx) => {
    const query = parseQuery(ctx, TransferOwnersQuerySchema);
    const scope = moveScope(ctx.state.principal, query.partition, placement);
    const owners = deps.owners(scope, query.cursor === undefined ? null : decodeCursor(query.cursor, scope), query.limit);
    const last = owners.length === query.limit ? owners.at(-1) : undefined;
    ctx.body = {
      owners: owners.map((o) => ({ entity_id: o.entityId, partition: o.partition })),
      next: last ? Buffer.from(JSON.stringify([last.partition, last.entityId])).toString('base64url') : null,
    };
  });

  router.delete('/copy', async (ctx) => {
    const scope = moveScope(ctx.state.principal, parseQuery(ctx, TransferQuerySchema).partition, placement);
    const placed = placedBy(scope);
    if (placement.serves(placed) || placement.hostOf(placed) === placement.nodeId) {
      throw conflict(`this node (${placement.nodeId}) serves this scope: its copy is the one in use, and stays`);
    }
    const released = await deps.release(scope);
    placement.transfers!.set(placement.keyOf(placed), 'none');
    ctx.body = { ...status(scope), released };
  });

  return router;
}

/** The tenant and partition the placement map places the scope by (a whole tenant by its tenant alone). */
function placedBy(scope: MoveScope): { tenant: string; partition: string | null } {
  return { tenant: scope.tenant, partition: scope.partition ?? null };
}

/** The scope an admin key names: its tenant, and for a tenant placed by partition, the partition. */
function moveScope(principal: Principal, partition: string | undefined, placement: NodePlacement): MoveScope {
  if (!principal.admin) throw new AppError('unauthorized', 'moving a scope takes a key with "admin": true');
  if (placement.byPartition(principal.tenant)) {
    if (principal.multiTenant && partition === undefined) throw invalidInput('query parameter partition is required for a multi-tenant key');
    return { tenant: principal.tenant, partition: partition ?? null };
  }
  if (partition !== undefined) throw invalidInput(`tenant ${principal.tenant} is placed whole (it has no multi-tenant key): a move takes no partition`);
  return { tenant: principal.tenant };
}

function decodeCursor(cursor: string, scope: MoveScope): Scope {
  try {
    const [partition, entityId] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as [unknown, unknown];
    if ((partition === null || typeof partition === 'string') && typeof entityId === 'string') return { tenant: scope.tenant, partition, entityId };
  } catch {
    // Not one of ours: answered below.
  }
  throw invalidInput('query parameter cursor is not a cursor this route gave');
}
