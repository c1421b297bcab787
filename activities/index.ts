import { createBackfillFieldActivities } from './backfill-field.js';
import { createCaptionMediaActivities } from './caption-media.js';
import { createConsolidateActivities } from './consolidate.js';
import type { ActivityDeps } from './deps.js';

export type { ActivityDeps } from './deps.js';

/**
 * Every activity the worker registers: one factory per workflow, merged. Add a workflow's
 * activities by spreading its factory here; names must be unique across workflows.
 */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createConsolidateActivities(deps),
    ...createCaptionMediaActivities(deps),
    ...createBackfillFieldActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
