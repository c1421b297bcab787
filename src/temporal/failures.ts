import { isGrpcServiceError, WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure, TemporalFailure } from '@temporalio/common';
import { AppError, ERROR_CODES, unavailable, type ErrorCode } from '../errors.js';

/** Thrown when a durable job cannot run because Temporal cannot serve now: 503 `unavailable` with `Retry-After`. */
export function temporalUnavailable(message: string, retryAfterS: number, cause?: unknown): AppError {
  return unavailable(message, cause, retryAfterS);
}

const APP_CODES: ReadonlySet<string> = new Set<string>(ERROR_CODES);

/**
 * Maps what a job run threw to the AppError the route answers with:
 * - an ApplicationFailure typed with an AppError code (activities/failures.ts) keeps its code and message;
 * - Temporal unreachable or overloaded, a call past its deadline, or a wait cut short → 503 `unavailable`;
 * - anything else (a bug, a timed-out workflow) → 500 `internal`, its detail in the log only.
 */
export function jobError(job: string, error: unknown, interrupted: string | null, retryAfterS: number): AppError {
  if (error instanceof AppError) return error;
  const failure = applicationFailure(error);
  if (failure?.type && APP_CODES.has(failure.type)) {
    const code = failure.type as ErrorCode;
    return new AppError(code, failure.message, { cause: error, expose: code !== 'internal' });
  }
  if (interrupted !== null) return temporalUnavailable(`${job} could not complete: ${interrupted}; retry later`, retryAfterS, error);
  if (isTransient(error)) return temporalUnavailable(`${job} needs Temporal, which is not reachable right now; retry later`, retryAfterS, error);
  return new AppError('internal', `${job} failed`, { cause: error });
}

// gRPC codes that mean "the cluster cannot serve now": CANCELLED, DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED, UNAVAILABLE.
const TRANSIENT_GRPC_CODES = new Set([1, 4, 8, 14]);

/** Whether the error (or any cause: the client wraps gRPC errors in ServiceError) says "not reachable now". */
function isTransient(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; current instanceof Error && depth < 10; depth++) {
    if (isGrpcServiceError(current)) return TRANSIENT_GRPC_CODES.has(current.code);
    if (/ECONNREFUSED|ECONNRESET|UNAVAILABLE|DEADLINE_EXCEEDED|tcp connect error|Failed to connect/i.test(current.message)) return true;
    current = current.cause;
  }
  return false;
}

function applicationFailure(error: unknown): ApplicationFailure | null {
  let current: unknown = error instanceof WorkflowFailedError ? error.cause : error;
  for (let depth = 0; current instanceof TemporalFailure && depth < 10; depth++) {
    if (current instanceof ApplicationFailure) return current;
    current = current.cause;
  }
  return null;
}
