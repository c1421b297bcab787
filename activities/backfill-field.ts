import { Context, log } from '@temporalio/activity';
import type { BackfillRef } from '../src/query/service.js';
import type { ActivityDeps } from './deps.js';
import { withAppFailures } from './failures.js';

/** Where a backfill stands: the last document number indexed and how many were indexed. */
export interface BackfillCursor {
  cursor: number;
  done: number;
}

export type SliceResult = (BackfillCursor & { finished: boolean }) | { superseded: true };

/**
 * Activities of the `backfillField` workflow. A slice indexes pages of documents (one transaction
 * each) for up to `max_ms`, heartbeating its cursor after every page; a retry after a worker crash
 * resumes from the last heartbeat instead of from the workflow's cursor.
 */
export function createBackfillFieldActivities(deps: ActivityDeps) {
  const fields = () => {
    if (!deps.fields) throw new Error('field indexes are not wired into the activities');
    return deps.fields;
  };
  return {
    async backfillFieldSlice(ref: BackfillRef, from: BackfillCursor, pageSize: number, maxMs: number): Promise<SliceResult> {
      return withAppFailures(async () => {
        const ctx = Context.current();
        const resumed = ctx.info.heartbeatDetails as BackfillCursor | undefined;
        let { cursor, done } = resumed ?? from;
        if (resumed) log.info('backfill resumed from heartbeat', { field: ref.name, cursor, done });
        const started = Date.now();
        for (;;) {
          if (ctx.cancellationSignal.aborted) throw ctx.cancellationSignal.reason;
          if (!fields().backfillTarget(ref)) return { superseded: true };
          const page = fields().backfillPage(ref, cursor, pageSize);
          if (page.docNos.length === 0) return { cursor, done, finished: true };
          const total = Math.max(page.total, done + page.docNos.length);
          if (!(await fields().backfillApply(ref, page.docNos, { done: done + page.docNos.length, total }))) return { superseded: true };
          cursor = page.docNos[page.docNos.length - 1]!;
          done += page.docNos.length;
          ctx.heartbeat({ cursor, done } satisfies BackfillCursor);
          if (Date.now() - started >= maxMs) return { cursor, done, finished: false };
        }
      });
    },

    /** Switches the field to the built version (atomically, in one transaction). */
    async completeFieldBackfill(ref: BackfillRef): Promise<boolean> {
      return withAppFailures(async () => fields().backfillComplete(ref));
    },

    async failFieldBackfill(ref: BackfillRef, reason: string): Promise<void> {
      return withAppFailures(async () => fields().backfillFailed(ref, reason.slice(0, 200)));
    },
  };
}

export type BackfillFieldActivities = ReturnType<typeof createBackfillFieldActivities>;
