import { log } from '@temporalio/activity';
import { placementOf, scopeOf, type ConsolidateActivities } from '../src/jobs/contract.js';
import { withAppFailures } from './failures.js';
import type { ActivityPorts } from './ports.js';

/** Activities of the `consolidate` workflow. */
export function createConsolidateActivities({ owners, placement }: Pick<ActivityPorts, 'owners' | 'placement'>): ConsolidateActivities {
  return {
    async consolidateOwner(owner) {
      return withAppFailures(async () => {
        placement.assertHosted(placementOf(owner));
        const report = await owners.actorFor(scopeOf(owner)).consolidate();
        log.info('owner consolidated', { ...report });
        return report;
      });
    },
  };
}
