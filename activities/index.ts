import type { Activities } from '../src/jobs/contract.js';
import { createBackfillFieldActivities } from './backfill-field.js';
import { createCaptionMediaActivities } from './caption-media.js';
import { createConsolidateActivities } from './consolidate.js';
import { createEraseOwnerActivities } from './erase-owner.js';
import { createPlacementActivities } from './placement.js';
import type { ActivityPorts } from './ports.js';
import { createReembedOwnerActivities } from './reembed-owner.js';
import { createReembedSweepActivities } from './reembed-sweep.js';

export type { ActivityPorts, ErasurePort, FieldBackfillPort, JobStartPort, MediaPort, OwnerRunsPort, OwnersPort, PlacementPort, ReembedPort } from './ports.js';

/**
 * Every activity the worker registers: one factory per workflow, merged, each given the ports it uses.
 * Add a workflow's activities by spreading its factory here; names must be unique across workflows
 * (their signatures are declared in src/jobs/contract.ts).
 */
export function createActivities(ports: ActivityPorts): Activities {
  return {
    ...createPlacementActivities(ports),
    ...createConsolidateActivities(ports),
    ...createCaptionMediaActivities(ports),
    ...createBackfillFieldActivities(ports),
    ...createReembedOwnerActivities(ports),
    ...createReembedSweepActivities(ports),
    ...createEraseOwnerActivities(ports),
  };
}
