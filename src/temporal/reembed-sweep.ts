import { Client, Connection, WorkflowFailedError, type WorkflowExecutionInfo } from '@temporalio/client';
import type { Config } from '../config.js';
import type { ReembedSweepInput, ReembedSweepResult } from '../jobs/contract.js';
import { nodeTaskQueue } from './queues.js';

/** What a sweep found and how the owners' re-embedding ended (when it was waited for). */
export interface SweepOutcome {
  owners: number;
  complete: number;
  failed: number;
}

export interface SweepOptions {
  /** Wait for every owner's re-embedding to end, printing progress (default true). */
  wait?: boolean;
  /** Pause between progress lines. */
  pollMs?: number;
}

/**
 * The operator's sweep (`npm run reembed`): starts the `reembedSweep` workflow for the node (NODE_ID),
 * so the running node itself finds its owners with passages of another embedder and starts (or joins)
 * their re-embedding, then prints their progress from Temporal's visibility (each run's memo `progress`)
 * until every one has ended. It needs the node running: the node does the work, with its own embedder.
 */
export async function runReembedSweep(t: Config['temporal'], nodeId: string, print: (line: string) => void, options: SweepOptions = {}): Promise<SweepOutcome> {
  const address = frontendAddress(t);
  const connection = await Connection.connect({ address, connectTimeout: t.connect_timeout_ms }).catch((error: unknown) => {
    throw new Error(`cannot reach Temporal at ${address} (${failureMessage(error)}): start the node first, or set TEMPORAL_ADDRESS to its cluster`);
  });
  try {
    const client = new Client({ connection, namespace: t.namespace });
    const since = new Date(Date.now() - 1000);
    const nodeQueue = nodeTaskQueue(t.task_queue, nodeId);
    const workflowId = `reembed-sweep/${encodeURIComponent(nodeQueue)}`;
    const input: ReembedSweepInput = {
      task_queue: nodeQueue,
      slice_ms: Math.max(1000, Math.floor(t.activities.start_to_close_timeout_ms / 2)),
      activity: { start_to_close_timeout_ms: t.activities.start_to_close_timeout_ms, heartbeat_timeout_ms: t.activities.heartbeat_timeout_ms, retry: t.activities.retry },
    };
    print(`sweeping the owners of node ${nodeId} (task queue ${nodeQueue}) at ${address} (workflow ${workflowId})`);
    const handle = await client.workflow.start('reembedSweep', {
      taskQueue: t.task_queue,
      workflowId,
      args: [input],
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: 'ALLOW_DUPLICATE',
      memo: { job: 'reembed-sweep' },
    });
    const { owners } = await handle.result().catch((error: unknown) => {
      throw new Error(`the sweep failed: ${failureMessage(error)}`);
    }) as ReembedSweepResult;
    print(`${owners} ${owners === 1 ? 'owner holds' : 'owners hold'} passages of another embedder; re-embedding ${owners === 1 ? 'it' : 'them'} (workflows reembed-owner/...)`);
    if (options.wait === false || owners === 0) return { owners, complete: 0, failed: 0 };
    return await watch(client, t.task_queue, since, owners, print, options.pollMs ?? 2000);
  } finally {
    await connection.close();
  }
}

/** Prints one line whenever the owners' progress changes, until every run started or joined has ended. */
async function watch(client: Client, taskQueue: string, since: Date, owners: number, print: (line: string) => void, pollMs: number): Promise<SweepOutcome> {
  const query = `WorkflowType = 'reembedOwner' AND TaskQueue = '${taskQueue}' AND (ExecutionStatus = 'Running' OR CloseTime >= '${since.toISOString()}')`;
  let last = '';
  for (;;) {
    // One entry per workflow id: a run that continued as new is followed by its successor.
    const runs = new Map<string, WorkflowExecutionInfo>();
    for await (const run of client.workflow.list({ query })) {
      if (run.status.name === 'CONTINUED_AS_NEW' && runs.has(run.workflowId)) continue;
      runs.set(run.workflowId, run);
    }
    const tally = { running: 0, complete: 0, failed: 0, done: 0, total: 0 };
    for (const run of runs.values()) {
      const status = run.status.name;
      if (status === 'RUNNING' || status === 'CONTINUED_AS_NEW') tally.running++;
      else if (status === 'COMPLETED') tally.complete++;
      else tally.failed++;
      const [done, total] = String(run.memo?.progress ?? '0/0').split('/').map(Number);
      tally.done += done ?? 0;
      tally.total += total ?? 0;
    }
    const line = `re-embedding ${runs.size} owners: ${tally.running} running, ${tally.complete} complete, ${tally.failed} failed; ${tally.done}/${tally.total} passages`;
    if (line !== last) print((last = line));
    // Visibility may lag the starts by a moment: done only once every owner's run is seen and none runs.
    if (tally.running === 0 && runs.size >= owners) return { owners, complete: tally.complete, failed: tally.failed };
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

/** The frontend the node uses: TEMPORAL_ADDRESS, else its embedded dev server's port, else `address` of temporal.yaml. */
function frontendAddress(t: Config['temporal']): string {
  if (!t.embedded) return t.address;
  if (t.dev_server.port === 0) throw new Error('the node picks its dev server port at random (dev_server.port: 0): set TEMPORAL_ADDRESS to the address it logged');
  return `127.0.0.1:${t.dev_server.port}`;
}

function failureMessage(error: unknown): string {
  let current: unknown = error instanceof WorkflowFailedError ? error.cause : error;
  while (current instanceof Error && current.cause instanceof Error) current = current.cause;
  return current instanceof Error ? current.message : String(error);
}
