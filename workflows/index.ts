// Every workflow the worker registers. Add a workflow by exporting it here (one file per workflow),
// and its activities in activities/index.ts. Workflow files import activities by type only.
export { consolidate } from './consolidate.js';
