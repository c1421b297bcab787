import { ApplicationFailure, continueAsNew, defineQuery, proxyActivities, setCurrentDetails, setHandler, upsertMemo, workflowInfo } from '@temporalio/workflow';
import { placementOf, REEMBED_PROGRESS_QUERY, type ReembedOwnerActivities, type ReembedOwnerInput, type ReembedOwnerResult, type ReembedProgress } from '../src/jobs/contract.js';
import { onHostingNode, onQueue } from './placement.js';
import { activityOptions } from './policy.js';

/** Slices per run before continuing as new, so a long re-embedding keeps a short history. */
const SLICES_PER_RUN = 200;
/** Passes over the owner's passages before giving up on foreign passages that keep reappearing. */
const MAX_PASSES = 3;

export const progressQuery = defineQuery<ReembedProgress>(REEMBED_PROGRESS_QUERY);

/**
 * Re-embeds one owner's foreign passages with the node's embedder, slice by slice, then has the owner's
 * vector index reopened with all of them. The activities run on the node's re-embedding task queue, whose
 * worker bounds how many run at once; the cursor lives in the owner's records (committed with each page),
 * so a killed worker's retry, or a new run of this workflow, goes on where the committed pages stopped.
 * Progress is answered by the `progress` query and shown in the UI (memo `progress`, current details).
 */
export async function reembedOwner(input: ReembedOwnerInput): Promise<ReembedOwnerResult> {
  const { heartbeat_timeout_ms: _, ...unbeating } = input.activity;
  // Only the slices heartbeat; planning and finishing (a scan, an index reload) are bounded by their timeout.
  // Each step runs on the re-embedding queue of the node hosting the owner, looked up as it is scheduled.
  const on = <T>(policy: typeof unbeating, run: (acts: ReembedOwnerActivities) => Promise<T>) =>
    onHostingNode(placementOf(input.owner), (queues) => run(proxyActivities<ReembedOwnerActivities>(onQueue(activityOptions(policy), queues?.reembed ?? input.task_queue))));
  const reembedSlice = (...args: Parameters<ReembedOwnerActivities['reembedSlice']>) => on(input.activity, (a) => a.reembedSlice(...args));
  const acts: Pick<ReembedOwnerActivities, 'planReembed' | 'finishReembed'> = {
    planReembed: (...args) => on(unbeating, (a) => a.planReembed(...args)),
    finishReembed: (...args) => on(unbeating, (a) => a.finishReembed(...args)),
  };
  const { owner, embedder } = input;
  let progress: ReembedProgress = input.from ?? { done: 0, total: 0 };
  setHandler(progressQuery, () => progress);
  if (!input.from) progress = await acts.planReembed(owner, embedder);
  show(progress);
  for (let pass = 1, slice = 0; ; pass++) {
    for (let finished = false; !finished; slice++) {
      if (slice >= SLICES_PER_RUN || workflowInfo().continueAsNewSuggested) {
        return await continueAsNew<typeof reembedOwner>({ ...input, from: progress });
      }
      const result = await reembedSlice(owner, embedder, input.page_size, input.slice_ms);
      finished = result.finished;
      progress = { done: result.done, total: Math.max(progress.total, result.done) };
      show(progress);
    }
    const { foreign } = await acts.finishReembed(owner, embedder);
    if (foreign === 0) return { reembedded: progress.done, total: progress.total };
    if (pass >= MAX_PASSES) {
      throw ApplicationFailure.nonRetryable(`${foreign} passages of another embedder remain after ${pass} passes`, 'internal');
    }
    progress = await acts.planReembed(owner, embedder);
    show(progress);
  }
}

function show({ done, total }: ReembedProgress): void {
  upsertMemo({ progress: `${done}/${total}` });
  setCurrentDetails(`re-embedded ${done} of ${total} passages`);
}
