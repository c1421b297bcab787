import { continueAsNew, proxyActivities, setCurrentDetails, workflowInfo } from '@temporalio/workflow';
import type { EraseOwnerActivities, EraseOwnerInput, EraseOwnerResult } from '../src/jobs/contract.js';
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
  const beating = proxyActivities<EraseOwnerActivities>(activityOptions(input.activity));
  const acts = proxyActivities<EraseOwnerActivities>(activityOptions(unbeating));
  const ref = { tenant: input.tenant, receipt_id: input.receipt_id };
  let finished = false;
  try {
    if (!(await acts.beginErasure(ref))) return { state: 'complete' };
    setCurrentDetails("deleting the owner's workflow runs");
    await beating.deleteOwnerRuns(ref);
    for (let slice = 0; !finished && slice < SLICES_PER_RUN && !workflowInfo().continueAsNewSuggested; slice++) {
      setCurrentDetails(`deleting the owner's records (slice ${slice + 1})`);
      ({ finished } = await beating.purgeErasedOwner(ref, input.slice_ms));
    }
    if (finished) await acts.completeErasure(ref);
  } catch (error) {
    await acts.failErasure(ref);
    throw error;
  }
  return finished ? { state: 'complete' } : await continueAsNew<typeof eraseOwner>(input);
}
