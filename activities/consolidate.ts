import { log } from '@temporalio/activity';
import { scopeOf, type ConsolidateActivities } from '../src/jobs/contract.js';
import { withAppFailures } from './failures.js';
import type { ActivityPorts } from './ports.js';

/** Activities of the `consolidate` workflow. */
export function createConsolidateActivities({ owners }: Pick<ActivityPorts, 'owners'>): ConsolidateActivities {
  return {
    async consolidateOwner(owner) {
      return withAppFailures(async () => {
        const report = await owners.actorFor(scopeOf(owner)).consolidate();
        log.info('owner consolidated', { ...report });
        return report;
      });
    },
  };
}
