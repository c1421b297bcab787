import type { BatchOperation, BatchResult } from '../../actors/owner-actor.js';
import { mintId } from '../../ids.js';
import { atOperation } from '../../actors/owner-batch.js';
import { assertUnreachable } from '../../errors.js';
import type { AppDeps } from '../context.js';
import { factCommand } from '../fact-command.js';
import { idempotentWrite } from '../idempotency.js';
import { bulkCharge } from '../middleware/rate-limit.js';
import type { AppRouter } from '../router.js';
import { MemoryBatchBodySchema, type MemoryOperation } from '../schemas/memory-batch.js';
import { OwnerQuerySchema } from '../schemas/memory.js';
import { ownerScope } from '../scope.js';
import { entityJson, factJson, relationshipJson } from '../serialize.js';
import { parseBody, parseQuery } from '../validate.js';

/** `POST /v1/memory/batch`: up to 1,000 memory writes of one owner, in order, all or nothing (DECISIONS.md, Bulk writes). */
export function registerMemoryBatchRoute(router: AppRouter, deps: AppDeps): void {
  router.post('/memory/batch', idempotentWrite(deps, { jsonLimit: deps.batchBodyLimit }), async (ctx) => {
    const scope = ownerScope(ctx, parseQuery(ctx, OwnerQuerySchema), 'write');
    const { operations } = await parseBody(ctx, MemoryBatchBodySchema, deps.batchBodyLimit);
    ctx.state.chargeRate?.(bulkCharge(operations.length));
    const now = deps.clock.now();
    const commands = operations.map((operation, i) => {
      try {
        return toCommand(operation, now, deps.observedAtMaxSkewMs);
      } catch (error) {
        throw atOperation(i, error);
      }
    });
    const answer = (results: BatchResult[]) => ({ results: results.map(resultJson), count: results.length });
    const keep = ctx.state.keepWithWrite;
    const results = await deps.actors.actorFor(scope).applyBatch(commands, keep && ((decided) => keep(200, answer(decided))));
    ctx.body = answer(results);
  });
}

/** An operation as the actor takes it: ids minted where the caller gave none, `observed_at` within its bound. */
function toCommand(operation: MemoryOperation, now: number, maxSkewMs: number): BatchOperation {
  switch (operation.op) {
    case 'upsert_entity': {
      const { op, ...input } = operation;
      return { op, input: { ...input, memory_entity_id: input.memory_entity_id ?? mintId('ent') } };
    }
    case 'upsert_relationship': {
      const { op, ...input } = operation;
      return { op, input: { ...input, relationship_id: input.relationship_id ?? mintId('rel') } };
    }
    case 'assert_fact':
      return { op: operation.op, command: factCommand(operation, now, maxSkewMs) };
    case 'retract_fact':
    case 'retract_relationship':
      return operation;
    default:
      return assertUnreachable(operation);
  }
}

function resultJson(result: BatchResult) {
  switch (result.kind) {
    case 'entity':
      return entityJson(result.record);
    case 'relationship':
      return relationshipJson(result.record);
    case 'fact':
      return factJson(result.record);
    default:
      return assertUnreachable(result);
  }
}
