import { proxyActivities } from '@temporalio/workflow';
import type { ConsolidateActivities, ConsolidateInput, ConsolidateResult } from '../src/jobs/contract.js';
import { activityOptions } from './policy.js';

/**
 * Consolidates one owner's facts. The plan and its retractions run as one activity inside the
 * owner's actor, so they commit together; the history holds the scope ids and the report's counts.
 */
export async function consolidate(input: ConsolidateInput): Promise<ConsolidateResult> {
  const { consolidateOwner } = proxyActivities<ConsolidateActivities>(activityOptions(input.activity));
  return consolidateOwner(input.owner);
}
