import type { JobsPort } from '../http/context.js';

/** Jobs when Temporal is switched off (`TEMPORAL_ENABLED=false`): every durable job answers 503. */
export function disabledJobs(): JobsPort & { stop(): Promise<void> } {
  return {
    readiness: () => ({ ready: false, detail: 'Temporal is disabled (TEMPORAL_ENABLED=false)' }),
    stop: async () => {},
  };
}
