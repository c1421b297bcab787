import { Context, log } from '@temporalio/activity';
import type { EraseOwnerActivities } from '../src/jobs/contract.js';
import { withAppFailures } from './failures.js';
import type { ActivityPorts } from './ports.js';

/**
 * Activities of the `eraseOwner` workflow. Each takes the receipt only and reads the owner from its
 * tombstone; what they log and return is counts and states, never the owner's id.
 */
export function createEraseOwnerActivities({ erasures, runs }: Pick<ActivityPorts, 'erasures' | 'runs'>): EraseOwnerActivities {
  const heartbeat = () => Context.current().heartbeat();
  return {
    beginErasure: (ref) => withAppFailures(() => erasures.begin(ref)),

    deleteOwnerRuns: (ref) =>
      withAppFailures(async () => {
        // Counted run by run: an attempt that fails after deleting some (a lost heartbeat) leaves its count,
        // and the retry counts only the runs still listed.
        await runs.deleteOwnerRuns(erasures.scopeOf(ref), heartbeat, () => erasures.count(ref, { workflow_runs: 1 }));
      }),

    purgeErasedOwner: (ref, maxMs) =>
      withAppFailures(async () => {
        const ctx = Context.current();
        if (ctx.cancellationSignal.aborted) throw ctx.cancellationSignal.reason;
        return erasures.purge(ref, { maxMs, heartbeat });
      }),

    completeErasure: (ref) =>
      withAppFailures(async () => {
        await erasures.complete(ref);
        log.info('owner erased', { receipt_id: ref.receipt_id });
      }),

    failErasure: (ref) => withAppFailures(() => erasures.fail(ref)),
  };
}
