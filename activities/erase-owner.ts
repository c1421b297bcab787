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
        // Counted once, at the end, over every attempt: a retry resumes from the run ids the last one
        // heartbeated, so a run deleted but still listed (visibility lags) is neither deleted nor counted twice.
        const ctx = Context.current();
        const done = (ctx.info.heartbeatDetails as string[] | undefined) ?? [];
        const deleted = await runs.deleteOwnerRuns(erasures.scopeOf(ref), done, (ids) => ctx.heartbeat(ids));
        if (deleted > 0) await erasures.count(ref, { workflow_runs: deleted });
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
