import { placementOf, type PlacementActivities } from '../src/jobs/contract.js';
import type { ActivityPorts } from './ports.js';

/** The local activity every job on owner data asks before each step: where the scope lives now. */
export function createPlacementActivities({ placement }: Pick<ActivityPorts, 'placement'>): PlacementActivities {
  return {
    hostingQueues: async (scope) => placement.queuesOf(placementOf(scope)),
  };
}
