import { isGrpcServiceError, WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure, TemporalFailure } from '@temporalio/common';
import { AppError, unavailable, type ErrorCode } from '../errors.js';

const APP_CODES: ReadonlySet<string> = new Set<ErrorCode>([
  'invalid_input', 'unauthorized', 'not_found', 'gone', 'payload_too_large', 'media_processing_unavailable',
  'rate_limited', 'internal', 'provider_error', 'unavailable',
]);

/**
 * Maps what a job run threw to the AppError the route answers with:
 * - an ApplicationFailure typed with an AppError code (activities/failures.ts) keeps its code and message;
 * - Temporal unreachable, a call past its deadline, or a wait cut short → 503 `unavailable`;
 * - anything else (a bug, a timed-out workflow) → 500 `internal`, its detail in the log only.
 */
export function jobError(job: string, error: unknown, interrupted: string | null): AppError {
  if (error instanceof AppError) return error;
  const failure = applicationFailure(error);
  if (failure?.type && APP_CODES.has(failure.type)) {
    const code = failure.type as ErrorCode;
    return new AppError(code, failure.message, { cause: error, expose: code !== 'internal' });
  }
  if (interrupted !== null) return unavailable(`${job} could not complete: ${interrupted}; retry later`, error);
  if (isGrpcServiceError(error) || isConnectionError(error)) {
    return unavailable(`${job} needs Temporal, which is not reachable right now; retry later`, error);
  }
  return new AppError('internal', `${job} failed`, { cause: error });
}

function applicationFailure(error: unknown): ApplicationFailure | null {
  let current: unknown = error instanceof WorkflowFailedError ? error.cause : error;
  for (let depth = 0; current instanceof TemporalFailure && depth < 10; depth++) {
    if (current instanceof ApplicationFailure) return current;
    current = current.cause;
  }
  return null;
}

function isConnectionError(error: unknown): boolean {
  const text = error instanceof Error ? `${error.name} ${error.message}` : String(error);
  return /ECONNREFUSED|UNAVAILABLE|DEADLINE_EXCEEDED|CANCELLED|Failed to connect|connection/i.test(text);
}
