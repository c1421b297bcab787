import { isGrpcServiceError, type Client } from '@temporalio/client';
import type { Scope } from '../domain/scope.js';
import { jobWorkflowId } from './search-attributes.js';

/** The jobs whose workflow ids name one owner (`<job>/<tenant>/<partition>/<owner>[/<more>]`). */
export const OWNER_JOBS = ['consolidate', 'caption-media', 'reembed-owner'] as const;

// gRPC status codes (stable protocol numbers).
const GRPC_NOT_FOUND = 5;
const GRPC_INVALID_ARGUMENT = 3;

/** How long deletions may take to leave the visibility list before the call fails (and its activity retries). */
const GONE_WITHIN_MS = 30_000;
const POLL_MS = 250;

/**
 * Terminates (when running) and deletes every workflow run of one owner, then waits until the visibility
 * list shows none of them (deletion is asynchronous in Temporal). Runs are found by the EngramTenant and
 * EngramOwner search attributes and by their workflow ids, and each is checked against its id's scope
 * parts, so a run of a same-named owner in another partition or tenant is never touched.
 *
 * `done` holds the run ids an earlier attempt deleted (its last heartbeat): a run deleted but still listed
 * is not deleted or counted again. `heartbeat` gets the ids deleted so far (run ids are UUIDs: they name
 * no owner). Returns how many distinct runs were deleted, across attempts.
 */
export async function deleteOwnerRuns(client: Client, scope: Scope, done: readonly string[], heartbeat: (done: string[]) => void): Promise<number> {
  const deleted = new Set(done);
  const deadline = Date.now() + GONE_WITHIN_MS;
  for (;;) {
    const runs = await listOwnerRuns(client, scope);
    if (runs.length === 0) return deleted.size;
    if (Date.now() > deadline) throw new Error(`${runs.length} workflow runs of the owner are still listed after deleting them`);
    for (const run of runs) {
      if (deleted.has(run.runId)) continue;
      if (run.running) await ignoreNotFound(client.workflow.getHandle(run.workflowId, run.runId).terminate('owner erased'));
      await ignoreNotFound(
        client.workflowService.deleteWorkflowExecution({ namespace: client.options.namespace, workflowExecution: { workflowId: run.workflowId, runId: run.runId } }),
      );
      deleted.add(run.runId);
      heartbeat([...deleted]);
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    heartbeat([...deleted]);
  }
}

interface ListedRun {
  workflowId: string;
  runId: string;
  running: boolean;
}

async function listOwnerRuns(client: Client, scope: Scope): Promise<ListedRun[]> {
  const byId = OWNER_JOBS.flatMap((job) => {
    const id = jobWorkflowId(job, scope);
    return [`WorkflowId = "${id}"`, `WorkflowId STARTS_WITH "${id}/"`];
  });
  const byAttributes = `(EngramTenant = ${quoted(scope.tenant)} AND EngramOwner = ${quoted(scope.entityId)})`;
  try {
    return await collect(client, [byAttributes, ...byId].join(' OR '), scope);
  } catch (error) {
    // A cluster that refused Engram's search attributes knows no such names: the ids still find the runs.
    if (!isGrpcServiceError(error) || error.code !== GRPC_INVALID_ARGUMENT) throw error;
    return collect(client, byId.join(' OR '), scope);
  }
}

async function collect(client: Client, query: string, scope: Scope): Promise<ListedRun[]> {
  const out: ListedRun[] = [];
  for await (const run of client.workflow.list({ query })) {
    if (isOwnersRun(run.workflowId, scope)) out.push({ workflowId: run.workflowId, runId: run.runId, running: run.status.name === 'RUNNING' });
  }
  return out;
}

/** Whether a workflow id is `<owner job>/<tenant>/<partition>/<owner>[/...]` of exactly this scope. */
export function isOwnersRun(workflowId: string, scope: Scope): boolean {
  const [job, ...rest] = workflowId.split('/');
  if (!(OWNER_JOBS as readonly string[]).includes(job ?? '')) return false;
  const [tenant, partition, owner] = rest.map((part) => {
    try {
      return decodeURIComponent(part);
    } catch {
      return null;
    }
  });
  return tenant === scope.tenant && partition === (scope.partition ?? '') && owner === scope.entityId;
}

/** A string literal of Temporal's list query language: double-quoted, with `"` and `\` escaped. */
function quoted(value: string): string {
  return `"${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

async function ignoreNotFound(call: Promise<unknown>): Promise<void> {
  try {
    await call;
  } catch (error) {
    const notFound = (isGrpcServiceError(error) && error.code === GRPC_NOT_FOUND) || (error instanceof Error && error.name === 'WorkflowNotFoundError');
    if (!notFound) throw error;
  }
}
