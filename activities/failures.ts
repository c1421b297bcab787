import { ApplicationFailure } from '@temporalio/common';
import { AppError } from '../src/errors.js';

/**
 * Runs an activity body and re-throws an AppError as an ApplicationFailure whose type is the error
 * code, so the HTTP side can answer with the same code (src/temporal/failures.ts). An AppError that is
 * not `retryable` (every 4xx, and what a thrower marked so) fails for good; the rest is left to the
 * retry policy.
 */
export async function withAppFailures<T>(body: () => Promise<T>): Promise<T> {
  try {
    return await body();
  } catch (error) {
    if (error instanceof AppError) {
      throw ApplicationFailure.create({ type: error.code, message: error.message, nonRetryable: !error.retryable, cause: error });
    }
    throw error;
  }
}
