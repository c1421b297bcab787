import type { HostingQueues } from '../jobs/contract.js';

/**
 * The task queue of a node's activities on owner data (docs/scale-out.md): `<task_queue>.<node_id>`. Only
 * that node polls it; workflows run on the shared `<task_queue>`, from any node.
 */
export function nodeTaskQueue(taskQueue: string, nodeId: string): string {
  return `${taskQueue}.${nodeId}`;
}

/** A node's re-embedding queue, beside its activity queue: its own worker runs a bounded number of these at once. */
export function reembedTaskQueue(nodeQueue: string): string {
  return `${nodeQueue}-reembed`;
}

/** The queues of a node: its activities' and its re-embedding queue. */
export function hostingQueues(taskQueue: string, nodeId: string): HostingQueues {
  const activities = nodeTaskQueue(taskQueue, nodeId);
  return { activities, reembed: reembedTaskQueue(activities) };
}
