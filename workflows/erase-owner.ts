import { continueAsNew, proxyActivities, setCurrentDetails, workflowInfo } from '@temporalio/workflow';
import { placementOf, type EraseOwnerActivities, type EraseOwnerInput, type EraseOwnerResult } from '../src/jobs/contract.js';
import { onHostingNode, onQueue } from './placement.js';
import { activityOptions } from './policy.js';

/** Purge slices per run before continuing as new, so a long erasure keeps a short history. */
const SLICES_PER_RUN = 200;

/**
 * Erases one owner, named only by its receipt: the activities read the owner from the tombstone. It
 * deletes the owner's workflow runs, then its records slice by slice (each slice in bounded transactions,
 * so a killed worker's retry goes on with what is left), then completes the receipt, which releases the
 * owner. A failure no retry can fix marks the receipt failed, and the owner stays held.
 */
export async function eraseOwner(input: EraseOwnerInput): Promise<EraseOwnerResult> {
  const { heartbeat_timeout_ms: _, ...unbeating } = input.activity;
  // Only the run deletion and the purge slices heartbeat; the receipt's steps are single transactions.
  // Every step runs on the node hosting the receipt's scope (the tombstone is there), looked up as it is scheduled.
  const on = <T>(policy: typeof unbeating, run: (acts: EraseOwnerActivities) => Promise<T>) =>
    onHostingNode(placementOf(input), (queues) => run(proxyActivities<EraseOwnerActivities>(onQueue(activityOptions(policy), queues?.activities ?? null))));
  const beating = <T>(run: (acts: EraseOwnerActivities) => Promise<T>) => on(input.activity, run);
  const acts = <T>(run: (acts: EraseOwnerActivities) => Promise<T>) => on(unbeating, run);
  const ref = input.partition === undefined ? { tenant: input.tenant, receipt_id: input.receipt_id } : { tenant: input.tenant, receipt_id: input.receipt_id, partition: input.partition };
  let finished = false;
  try {
    if (!(await acts((a) => a.beginErasure(ref)))) return { state: 'complete' };
    setCurrentDetails("deleting the owner's workflow runs");
    await beating((a) => a.deleteOwnerRuns(ref));
    for (let slice = 0; !finished && slice < SLICES_PER_RUN && !workflowInfo().continueAsNewSuggested; slice++) {
      setCurrentDetails(`deleting the owner's records (slice ${slice + 1})`);
      ({ finished } = await beating((a) => a.purgeErasedOwner(ref, input.slice_ms)));
    }
    if (finished) await acts((a) => a.completeErasure(ref));
  } catch (error) {
    await acts((a) => a.failErasure(ref));
    throw error;
  }
  return finished ? { state: 'complete' } : await continueAsNew<typeof eraseOwner>(input);
}
