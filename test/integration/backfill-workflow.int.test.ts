import { randomUUID } from 'node:crypto';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { Worker } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import type { BackfillCursor, BackfillFieldInput, BackfillRef, SliceResult } from '../../src/jobs/contract.js';
import { QUICK_POLICY, useTemporal, WORKFLOWS } from '../helpers/temporal.js';

/**
 * The backfill workflow's orchestration on the real dev server, with stand-in activities: it feeds
 * each slice the previous cursor, switches the field only when every slice finished, stops quietly when
 * superseded, and records `failed:<reason>` when a slice fails for good.
 */
const ref: BackfillRef = { tenant: 't', partition_scope: null, name: 'f', ver: 'f1' };

const temporal = useTemporal();

async function run(slices: Array<SliceResult | Error>, complete = true) {
  const calls: { slices: BackfillCursor[]; completed: number; failed: string[] } = { slices: [], completed: 0, failed: [] };
  let n = 0;
  const taskQueue = `backfill-wf-${randomUUID()}`;
  const worker = await Worker.create({
    connection: temporal.native,
    taskQueue,
    workflowsPath: WORKFLOWS,
    activities: {
      // The one node here hosts every scope: its queue is this worker's.
      hostingQueues: async () => ({ activities: taskQueue, reembed: `${taskQueue}-reembed` }),
      backfillFieldSlice: async (_ref: BackfillRef, from: BackfillCursor): Promise<SliceResult> => {
        calls.slices.push(from);
        const next = slices[Math.min(n++, slices.length - 1)]!;
        if (next instanceof Error) throw next;
        return next;
      },
      completeFieldBackfill: async () => (calls.completed++, complete),
      failFieldBackfill: async (_ref: BackfillRef, reason: string) => void calls.failed.push(reason),
    },
  });
  const input: BackfillFieldInput = { field: ref, page_size: 10, slice_ms: 1000, activity: QUICK_POLICY };
  const outcome: { result?: unknown; error?: unknown } = await worker.runUntil(
    temporal.client.workflow.execute('backfillField', { taskQueue, workflowId: `wf-${randomUUID()}`, args: [input] }).then(
      (result) => ({ result }),
      (error: unknown) => ({ error }),
    ),
  );
  return { ...outcome, calls };
}

describe('backfillField workflow', () => {
  it('passes each slice the previous cursor and completes once a slice reports finished', async () => {
    const { result, calls } = await run([
      { cursor: 9, done: 10, finished: false },
      { cursor: 19, done: 20, finished: false },
      { cursor: 24, done: 25, finished: true },
    ]);
    expect(result).toEqual({ status: 'complete', indexed: 25 });
    expect(calls.slices).toEqual([{ cursor: -1, done: 0 }, { cursor: 9, done: 10 }, { cursor: 19, done: 20 }]);
    expect(calls.completed).toBe(1);
  });

  it('stops without switching when the version was superseded', async () => {
    const { result, calls } = await run([{ cursor: 9, done: 10, finished: false }, { superseded: true }]);
    expect(result).toEqual({ status: 'superseded' });
    expect(calls.completed).toBe(0);
    expect(calls.failed).toEqual([]);
  });

  it('records failed:<reason> when a slice fails for good, and the run fails', async () => {
    const { error, calls } = await run([ApplicationFailure.create({ type: 'internal', message: 'disk full', nonRetryable: true })]);
    expect(error).toBeInstanceOf(WorkflowFailedError);
    expect(calls.failed).toEqual(['disk full']);
    expect(calls.completed).toBe(0);
  });
});
