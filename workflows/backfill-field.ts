import { ActivityFailure, ApplicationFailure, continueAsNew, isCancellation, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { BackfillCursor, BackfillFieldActivities } from '../activities/backfill-field.js';
import type { BackfillRef } from '../src/query/service.js';
import { activityOptions } from './policy.js';
import type { ActivityPolicy } from './types.js';

export interface BackfillFieldInput {
  /** Field identity and the version being built: ids only. */
  field: BackfillRef;
  page_size: number;
  /** How long one slice activity indexes before it returns its cursor. */
  slice_ms: number;
  activity: ActivityPolicy;
  /** Where a continued-as-new run picks up. */
  from?: BackfillCursor;
}

export type BackfillFieldResult = { status: 'complete'; indexed: number } | { status: 'superseded' };

/** Slices per run before continuing as new, so a long backfill keeps a short history. */
const SLICES_PER_RUN = 200;

/**
 * Indexes every existing document of a field's scope into the new field version, slice by slice,
 * then switches the field to it. A re-declaration terminates this run (same workflow id) and the
 * activities also stop on their own once the version is no longer the one being built.
 */
export async function backfillField(input: BackfillFieldInput): Promise<BackfillFieldResult> {
  const acts = proxyActivities<BackfillFieldActivities>(activityOptions(input.activity));
  let at: BackfillCursor = input.from ?? { cursor: -1, done: 0 };
  try {
    for (let slice = 0; ; slice++) {
      if (slice >= SLICES_PER_RUN || workflowInfo().continueAsNewSuggested) {
        return await continueAsNew<typeof backfillField>({ ...input, from: at });
      }
      const result = await acts.backfillFieldSlice(input.field, at, input.page_size, input.slice_ms);
      if ('superseded' in result) return { status: 'superseded' };
      at = { cursor: result.cursor, done: result.done };
      if (result.finished) break;
    }
    if (!(await acts.completeFieldBackfill(input.field))) return { status: 'superseded' };
    return { status: 'complete', indexed: at.done };
  } catch (error) {
    if (isCancellation(error)) throw error;
    const cause = error instanceof ActivityFailure && error.cause instanceof ApplicationFailure ? error.cause.message : (error as Error).message;
    await acts.failFieldBackfill(input.field, cause || 'backfill failed');
    throw error;
  }
}
