import { proxyActivities } from '@temporalio/workflow';
import { placementOf, type ConsolidateActivities, type ConsolidateInput, type ConsolidateResult } from '../src/jobs/contract.js';
import { onHostingNode, onQueue } from './placement.js';
import { activityOptions } from './policy.js';

/**
 * Consolidates one owner's facts. The plan and its retractions run as one activity inside the
 * owner's actor, on the node hosting it, so they commit together; the history holds the scope ids and
 * the report's counts.
 */
export async function consolidate(input: ConsolidateInput): Promise<ConsolidateResult> {
  return onHostingNode(placementOf(input.owner), (queues) => {
    const { consolidateOwner } = proxyActivities<ConsolidateActivities>(onQueue(activityOptions(input.activity), queues?.activities ?? null));
    return consolidateOwner(input.owner);
  });
}
