import { ActivityFailure, ApplicationFailure, continueAsNew, isCancellation, proxyActivities, workflowInfo } from '@temporalio/workflow';
import { placementOf, type BackfillCursor, type BackfillFieldActivities, type BackfillFieldInput, type BackfillFieldResult } from '../src/jobs/contract.js';
import { onHostingNode, onQueue } from './placement.js';
import { activityOptions } from './policy.js';

/** Slices per run before continuing as new, so a long backfill keeps a short history. */
const SLICES_PER_RUN = 200;

/**
 * Indexes every existing document of a field's scope into the new field version, slice by slice,
 * then switches the field to it. A re-declaration terminates this run (same workflow id) and the
 * activities also stop on their own once the version is no longer the one being built.
 */
export async function backfillField(input: BackfillFieldInput): Promise<BackfillFieldResult> {
  // Each step runs on the node hosting the field's scope, looked up as it is scheduled.
  const scope = placementOf({ tenant: input.field.tenant, partition: input.field.partition_scope });
  const step = <T>(run: (acts: BackfillFieldActivities) => Promise<T>) =>
    onHostingNode(scope, (queues) => run(proxyActivities<BackfillFieldActivities>(onQueue(activityOptions(input.activity), queues?.activities ?? null))));
  let at: BackfillCursor = input.from ?? { cursor: -1, done: 0 };
  try {
    for (let slice = 0; ; slice++) {
      if (slice >= SLICES_PER_RUN || workflowInfo().continueAsNewSuggested) {
        return await continueAsNew<typeof backfillField>({ ...input, from: at });
      }
      const result = await step((acts) => acts.backfillFieldSlice(input.field, at, input.page_size, input.slice_ms));
      if ('superseded' in result) return { status: 'superseded' };
      at = { cursor: result.cursor, done: result.done };
      if (result.finished) break;
    }
    if (!(await step((acts) => acts.completeFieldBackfill(input.field)))) return { status: 'superseded' };
    return { status: 'complete', indexed: at.done };
  } catch (error) {
    if (isCancellation(error)) throw error;
    const cause = error instanceof ActivityFailure && error.cause instanceof ApplicationFailure ? error.cause.message : (error as Error).message;
    await step((acts) => acts.failFieldBackfill(input.field, cause || 'backfill failed'));
    throw error;
  }
}
