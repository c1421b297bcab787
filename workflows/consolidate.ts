import { proxyActivities } from '@temporalio/workflow';
import type { ConsolidateActivities } from '../activities/consolidate.js';
import type { ConsolidationReport } from '../src/domain/consolidation.js';
import { activityOptions } from './policy.js';
import type { ActivityPolicy, OwnerRef } from './types.js';

export interface ConsolidateInput {
  owner: OwnerRef;
  activity: ActivityPolicy;
}

/**
 * Consolidates one owner's facts. The plan and its retractions run as one activity inside the
 * owner's actor, so they commit together; the history holds the scope ids and the report's counts.
 */
export async function consolidate(input: ConsolidateInput): Promise<ConsolidationReport> {
  const { consolidateOwner } = proxyActivities<ConsolidateActivities>(activityOptions(input.activity));
  return consolidateOwner(input.owner);
}
