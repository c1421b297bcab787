import { unavailable } from '../errors.js';
import type { Jobs } from './jobs.js';

/**
 * Jobs when Temporal is switched off (`TEMPORAL_ENABLED=false`): every durable job answers 503. A file of
 * its own, importing nothing of Temporal, so that such a node never loads Temporal's client or worker.
 */
export function disabledJobs(): Jobs {
  const off = (): never => {
    throw unavailable('durable jobs are disabled on this node (TEMPORAL_ENABLED=false)');
  };
  return {
    readiness: () => ({ ready: false, detail: 'Temporal is disabled (TEMPORAL_ENABLED=false)' }),
    consolidate: async () => off(),
    captionMedia: async () => off(),
    backfillField: async () => off(),
    requestReembed: () => undefined,
    // A node without Temporal runs its erasures in process (src/server.ts), never through here.
    requestErasure: () => undefined,
    started: Promise.resolve(),
    stop: async () => {},
  };
}

