// Every workflow the worker registers. Add a workflow by exporting it here (one file per workflow),
// and its activities in activities/index.ts. Workflow files import activities by type only.
export { captionMedia } from './caption-media.js';
export { consolidate } from './consolidate.js';
export { backfillField } from './backfill-field.js';
