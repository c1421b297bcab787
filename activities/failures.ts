import { ApplicationFailure } from '@temporalio/common';
import { AppError } from '../src/errors.js';

/**
 * Runs an activity body and re-throws an AppError as an ApplicationFailure whose type is the error
 * code, so the HTTP side can answer with the same code (src/temporal/failures.ts). 4xx-class errors
 * are non-retryable; anything else is left to the retry policy.
 */
export async function withAppFailures<T>(body: () => Promise<T>): Promise<T> {
  try {
    return await body();
  } catch (error) {
    if (error instanceof AppError) {
      throw ApplicationFailure.create({ type: error.code, message: error.message, nonRetryable: error.status < 500, cause: error });
    }
    throw error;
  }
}
