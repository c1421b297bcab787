import { Context, log } from '@temporalio/activity';
import { placementOf, type BackfillCursor, type BackfillFieldActivities, type BackfillRef } from '../src/jobs/contract.js';
import { withAppFailures } from './failures.js';
import type { ActivityPorts } from './ports.js';

/**
 * Activities of the `backfillField` workflow. A slice indexes pages of documents (one transaction
 * each) for up to `max_ms`, heartbeating its cursor after every page; a retry after a worker crash
 * resumes from the last heartbeat instead of from the workflow's cursor.
 */
export function createBackfillFieldActivities({ fields, placement }: Pick<ActivityPorts, 'fields' | 'placement'>): BackfillFieldActivities {
  const hosted = (ref: BackfillRef) => placement.assertHosted(placementOf({ tenant: ref.tenant, partition: ref.partition_scope }));
  return {
    async backfillFieldSlice(ref, from, pageSize, maxMs) {
      return withAppFailures(async () => {
        hosted(ref);
        const ctx = Context.current();
        const resumed = ctx.info.heartbeatDetails as BackfillCursor | undefined;
        let { cursor, done } = resumed ?? from;
        if (resumed) log.info('backfill resumed from heartbeat', { field: ref.name, cursor, done });
        const started = Date.now();
        for (;;) {
          if (ctx.cancellationSignal.aborted) throw ctx.cancellationSignal.reason;
          if (!fields.backfillTarget(ref)) return { superseded: true };
          const page = fields.backfillPage(ref, cursor, pageSize);
          if (page.docNos.length === 0) return { cursor, done, finished: true };
          const total = Math.max(page.total, done + page.docNos.length);
          if (!(await fields.backfillApply(ref, page.docNos, { done: done + page.docNos.length, total }))) return { superseded: true };
          cursor = page.docNos[page.docNos.length - 1]!;
          done += page.docNos.length;
          ctx.heartbeat({ cursor, done } satisfies BackfillCursor);
          if (Date.now() - started >= maxMs) return { cursor, done, finished: false };
        }
      });
    },

    async completeFieldBackfill(ref) {
      return withAppFailures(async () => (hosted(ref), fields.backfillComplete(ref)));
    },

    async failFieldBackfill(ref, reason) {
      return withAppFailures(async () => (hosted(ref), fields.backfillFailed(ref, reason.slice(0, 200))));
    },
  };
}
