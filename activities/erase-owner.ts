import { Context, log } from '@temporalio/activity';
import { placementOf, type EraseOwnerActivities, type ErasureRef } from '../src/jobs/contract.js';
import { withAppFailures } from './failures.js';
import type { ActivityPorts } from './ports.js';

/**
 * Activities of the `eraseOwner` workflow. Each takes the receipt only and reads the owner from its
 * tombstone; what they log and return is counts and states, never the owner's id.
 */
export function createEraseOwnerActivities({ erasures, runs, placement }: Pick<ActivityPorts, 'erasures' | 'runs' | 'placement'>): EraseOwnerActivities {
  const heartbeat = () => Context.current().heartbeat();
  // A receipt recorded before nodes had queues names no partition: its run stays on one node's queue anyway.
  const hosted = (ref: ErasureRef) => ref.partition !== undefined && placement.assertHosted(placementOf(ref));
  return {
    beginErasure: (ref) => withAppFailures(async () => (hosted(ref), erasures.begin(ref))),

    deleteOwnerRuns: (ref) =>
      withAppFailures(async () => {
        // Counted once, at the end, over every attempt: a retry resumes from the run ids the last one
        // heartbeated, so a run deleted but still listed (visibility lags) is neither deleted nor counted twice.
        hosted(ref);
        const ctx = Context.current();
        const done = (ctx.info.heartbeatDetails as string[] | undefined) ?? [];
        const deleted = await runs.deleteOwnerRuns(erasures.scopeOf(ref), done, (ids) => ctx.heartbeat(ids));
        if (deleted > 0) await erasures.count(ref, { workflow_runs: deleted });
      }),

    purgeErasedOwner: (ref, maxMs) =>
      withAppFailures(async () => {
        hosted(ref);
        const ctx = Context.current();
        if (ctx.cancellationSignal.aborted) throw ctx.cancellationSignal.reason;
        return erasures.purge(ref, { maxMs, heartbeat });
      }),

    completeErasure: (ref) =>
      withAppFailures(async () => {
        hosted(ref);
        await erasures.complete(ref);
        log.info('owner erased', { receipt_id: ref.receipt_id });
      }),

    failErasure: (ref) => withAppFailures(async () => (hosted(ref), erasures.fail(ref))),
  };
}
