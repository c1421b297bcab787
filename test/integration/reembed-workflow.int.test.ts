import { randomUUID } from 'node:crypto';
import { WorkflowFailedError } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { REEMBED_PROGRESS_QUERY, type OwnerRef, type ReembedOwnerInput, type ReembedProgress } from '../../src/jobs/contract.js';
import { QUICK_POLICY, useTemporal, WORKFLOWS } from '../helpers/temporal.js';

/**
 * The reembedOwner workflow's orchestration on the real dev server, with stand-in activities on the
 * re-embedding queue: it plans, runs slices until one reports finished, shows progress (query and memo),
 * then finishes; it goes over the owner again when foreign passages remain, and gives up after three passes.
 */
const owner: OwnerRef = { tenant: 't', partition: null, entity_id: 'o' };

const temporal = useTemporal();

async function run(slices: Array<{ done: number; finished: boolean }>, remaining: number[]) {
  const calls = { plans: 0, finishes: 0, progress: [] as ReembedProgress[], memo: [] as unknown[] };
  const taskQueue = `reembed-wf-${randomUUID()}`;
  const workflowId = `wf-${randomUUID()}`;
  let n = 0;
  const handle = () => temporal.client.workflow.getHandle(workflowId);
  const activities = {
    planReembed: async () => (calls.plans++, { done: 0, total: 10 }),
    reembedSlice: async () => {
      // What an operator sees between slices: the query and the memo.
      if (n > 0) {
        calls.progress.push(await handle().query<ReembedProgress>(REEMBED_PROGRESS_QUERY));
        calls.memo.push((await handle().describe()).memo?.progress);
      }
      return slices[Math.min(n++, slices.length - 1)]!;
    },
    finishReembed: async () => ({ foreign: remaining[calls.finishes++] ?? 0 }),
  };
  // The activities run on the re-embedding queue only; the workflow on its own queue.
  const activityQueue = `${taskQueue}-reembed`;
  // The node hosting the owner, as the workflow's placement lookup (a local activity) answers it.
  const hostingQueues = async () => ({ activities: taskQueue, reembed: activityQueue });
  const workflowWorker = await Worker.create({ connection: temporal.native, taskQueue, workflowsPath: WORKFLOWS, activities: { hostingQueues } });
  const activityWorker = await Worker.create({ connection: temporal.native, taskQueue: activityQueue, activities, maxConcurrentActivityTaskExecutions: 1 });
  const input: ReembedOwnerInput = { owner, embedder: 'm', task_queue: activityQueue, page_size: 2, slice_ms: 1000, activity: QUICK_POLICY };
  const outcome: { result?: unknown; error?: unknown } = await workflowWorker.runUntil(
    activityWorker.runUntil(
      temporal.client.workflow.execute('reembedOwner', { taskQueue, workflowId, args: [input] }).then(
        (result) => ({ result }),
        (error: unknown) => ({ error }),
      ),
    ),
  );
  return { ...outcome, calls };
}

describe('reembedOwner workflow', () => {
  it('runs slices until one finishes, shows progress between them, then finishes the owner', async () => {
    const { result, calls } = await run([{ done: 4, finished: false }, { done: 8, finished: false }, { done: 10, finished: true }], [0]);
    expect(result).toEqual({ reembedded: 10, total: 10 });
    expect(calls.progress).toEqual([{ done: 4, total: 10 }, { done: 8, total: 10 }]);
    expect(calls.memo).toEqual(['4/10', '8/10']);
    expect([calls.plans, calls.finishes]).toEqual([1, 1]);
  });

  it('goes over the owner again while foreign passages remain, and fails after three passes', async () => {
    const again = await run([{ done: 10, finished: true }], [2, 0]);
    expect(again.result).toEqual({ reembedded: 10, total: 10 });
    expect([again.calls.plans, again.calls.finishes]).toEqual([2, 2]);

    const stuck = await run([{ done: 10, finished: true }], [1, 1, 1]);
    expect(stuck.error).toBeInstanceOf(WorkflowFailedError);
    expect(String((stuck.error as WorkflowFailedError).cause?.message)).toMatch(/1 passages of another embedder remain after 3 passes/);
  });
});
