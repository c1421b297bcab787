import { log } from '@temporalio/activity';
import type { ConsolidationReport } from '../src/domain/consolidation.js';
import type { OwnerRef } from '../workflows/types.js';
import type { ActivityDeps } from './deps.js';
import { withAppFailures } from './failures.js';

/** Activities of the `consolidate` workflow. */
export function createConsolidateActivities(deps: ActivityDeps) {
  return {
    /** Plans and retracts in the owner's actor; returns counts only. */
    async consolidateOwner(owner: OwnerRef): Promise<ConsolidationReport> {
      return withAppFailures(async () => {
        const scope = { tenant: owner.tenant, partition: owner.partition, entityId: owner.entity_id };
        const report = await deps.actors.actorFor(scope).consolidate();
        log.info('owner consolidated', { ...report });
        return report;
      });
    },
  };
}

export type ConsolidateActivities = ReturnType<typeof createConsolidateActivities>;
