import { ActivityFailure, ApplicationFailure, patched, proxyLocalActivities, sleep, type ActivityOptions } from '@temporalio/workflow';
import type { HostingQueues, PlacementActivities, PlacementRef } from '../src/jobs/contract.js';

/**
 * Marks the runs whose activities go to the hosting node's queue. Runs recorded before it (one node, one
 * queue) replay as they ran: their activities stay on the workflow's own queue.
 */
const NODE_QUEUES = 'node-task-queues';

/** Times an activity refused as misdirected is placed again: with the pauses below, about a quarter of an hour. */
const PLACEMENT_ATTEMPTS = 64;
const FIRST_PAUSE_MS = 500;
const LONGEST_PAUSE_MS = 15_000;

const { hostingQueues } = proxyLocalActivities<PlacementActivities>({ startToCloseTimeout: '10s', retry: { maximumAttempts: 5 } });

/**
 * Runs `call` on the node that hosts `scope` (docs/scale-out.md): its queues are looked up from the
 * placement map when the call is made, so a job started before a scope moved runs where the scope is now.
 * A node that no longer hosts the scope, or is handing it over, refuses the activity as `misdirected`; the
 * call is then placed again after a pause, until the map has settled on the new node.
 */
export async function onHostingNode<T>(scope: PlacementRef, call: (queues: HostingQueues | null) => Promise<T>): Promise<T> {
  if (!patched(NODE_QUEUES)) return call(null);
  for (let attempt = 1; ; attempt++) {
    const queues = await hostingQueues(scope);
    try {
      return await call(queues);
    } catch (error) {
      if (!misdirected(error) || attempt >= PLACEMENT_ATTEMPTS) throw error;
      await sleep(Math.min(FIRST_PAUSE_MS * 2 ** (attempt - 1), LONGEST_PAUSE_MS));
    }
  }
}

/** Activity options sent to `queue` (the workflow's own queue when null: runs recorded before node queues). */
export function onQueue(options: ActivityOptions, queue: string | null): ActivityOptions {
  return queue === null ? options : { ...options, taskQueue: queue };
}

function misdirected(error: unknown): boolean {
  return error instanceof ActivityFailure && error.cause instanceof ApplicationFailure && error.cause.type === 'misdirected';
}
