import { continueAsNew, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { ReembedSweepActivities, ReembedSweepInput, ReembedSweepResult } from '../src/jobs/contract.js';
import { onQueue } from './placement.js';
import { activityOptions } from './policy.js';

/** Slices per run before continuing as new. */
const SLICES_PER_RUN = 200;

/**
 * Visits every owner of the node (the operator's `npm run reembed`) and starts the re-embedding of each
 * that holds passages of another embedder; the node's activity decides, with the node's embedder, so a
 * node running the hashing fallback refuses. Owners whose re-embedding already runs are joined, not restarted.
 */
export async function reembedSweep(input: ReembedSweepInput): Promise<ReembedSweepResult> {
  // The node's own owners: its activities run on the queue of the node the sweep was started for.
  const { sweepForeignOwners } = proxyActivities<ReembedSweepActivities>(onQueue(activityOptions(input.activity), input.task_queue ?? null));
  let at = input.from ?? { after: null, owners: 0 };
  for (let slice = 0; ; slice++) {
    if (slice >= SLICES_PER_RUN || workflowInfo().continueAsNewSuggested) {
      return await continueAsNew<typeof reembedSweep>({ ...input, from: at });
    }
    const result = await sweepForeignOwners(at.after, input.slice_ms);
    at = { after: result.next, owners: at.owners + result.owners };
    if (result.next === null) return { owners: at.owners };
  }
}
