import type { ActivityOptions } from '@temporalio/workflow';
import type { ActivityPolicy } from './types.js';

/**
 * Turns an ActivityPolicy into proxyActivities options. Errors whose type is a 4xx-class AppError
 * code are never retried: no retry fixes bad input or a missing record.
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
      nonRetryableErrorTypes: ['invalid_input', 'not_found', 'gone', 'payload_too_large', 'media_processing_unavailable'],
    },
  };
}
