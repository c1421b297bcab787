import type { ActivityOptions } from '@temporalio/workflow';
import { NON_RETRYABLE_CODES } from '../src/errors.js';
import type { ActivityPolicy } from '../src/jobs/contract.js';

/**
 * Turns an ActivityPolicy into proxyActivities options. Errors whose type is a non-retryable AppError
 * code (every 4xx, src/errors.ts) are never retried: no retry fixes bad input or a missing record.
 * (The activities mark those failures non-retryable themselves; this also covers a failure typed so.)
 */
export function activityOptions(policy: ActivityPolicy): ActivityOptions {
  return {
    startToCloseTimeout: policy.start_to_close_timeout_ms,
    ...(policy.heartbeat_timeout_ms === undefined ? {} : { heartbeatTimeout: policy.heartbeat_timeout_ms }),
    retry: {
      initialInterval: policy.retry.initial_interval_ms,
      backoffCoefficient: policy.retry.backoff_coefficient,
      maximumInterval: policy.retry.maximum_interval_ms,
      maximumAttempts: policy.retry.maximum_attempts,
      nonRetryableErrorTypes: [...NON_RETRYABLE_CODES],
    },
  };
}
