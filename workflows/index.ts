// Every workflow the worker registers. Add a workflow by exporting it here (one file per workflow),
// its input and activity interface in src/jobs/contract.ts, and its activities in activities/index.ts.
// Workflow files import src/jobs/contract.ts (types) and @temporalio/workflow, never activities/.
export { captionMedia } from './caption-media.js';
export { consolidate } from './consolidate.js';
export { backfillField } from './backfill-field.js';
export { reembedOwner } from './reembed-owner.js';
export { reembedSweep } from './reembed-sweep.js';
export { eraseOwner } from './erase-owner.js';
