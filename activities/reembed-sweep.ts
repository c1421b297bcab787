import { Context, log } from '@temporalio/activity';
import { ownerRef, scopeOf, type OwnerRef, type ReembedSweepActivities } from '../src/jobs/contract.js';
import { withAppFailures } from './failures.js';
import type { ActivityPorts } from './ports.js';
import { refuseUnless } from './reembed-owner.js';

interface SweepBeat {
  next: OwnerRef;
  owners: number;
}

/**
 * Activities of the `reembedSweep` workflow: visits owners in key order, starting (or joining) the
 * re-embedding of each that holds foreign passages, and heartbeats its cursor after every owner, so a retry
 * resumes there.
 */
export function createReembedSweepActivities({ reembed, starts }: Pick<ActivityPorts, 'reembed' | 'starts'>): ReembedSweepActivities {
  return {
    sweepForeignOwners: (after, maxMs) =>
      withAppFailures(async () => {
        refuseUnless(reembed, null);
        const ctx = Context.current();
        const resumed = ctx.info.heartbeatDetails as SweepBeat | undefined;
        let owners = resumed?.owners ?? 0;
        const started = Date.now();
        for (const scope of reembed.owners(resumed ? scopeOf(resumed.next) : after && scopeOf(after))) {
          if (ctx.cancellationSignal.aborted) throw ctx.cancellationSignal.reason;
          if (await reembed.hasForeign(scope)) {
            await starts.reembedOwner(scope);
            owners++;
          }
          ctx.heartbeat({ next: ownerRef(scope), owners } satisfies SweepBeat);
          if (Date.now() - started >= maxMs) return { owners, next: ownerRef(scope) };
        }
        log.info('re-embedding sweep visited every owner', { owners });
        return { owners, next: null };
      }),
  };
}
