import type { components } from './generated/openapi.js';

/** Every `code` the service's error body may carry (the Error component's enum). */
export type ErrorCode = components['schemas']['Error']['code'];

/** The parts of a failed response an error keeps. */
export interface ApiErrorInit {
  status: number;
  code: string;
  message: string;
  requestId: string | null;
  headers?: Headers;
}

/** Base of every error the SDK throws: `instanceof EngramError` catches them all. */
export class EngramError extends Error {
  override name = 'EngramError';
}

/**
 * Thrown when the service answered with an error body `{ error, code, request_id }`. Subclasses exist
 * for every code of the contract; an unknown code (a newer service) arrives as this class itself.
 */
export class ApiError extends EngramError {
  override name = 'ApiError';
  /** HTTP status of the answer. */
  readonly status: number;
  /** The service's machine code, e.g. `not_found`. */
  readonly code: string;
  /** The request's id (`X-Request-Id`): quote it when you report a problem. */
  readonly requestId: string | null;
  /** The answer's headers. */
  readonly headers: Headers;

  constructor(init: ApiErrorInit) {
    super(init.message);
    this.status = init.status;
    this.code = init.code;
    this.requestId = init.requestId;
    this.headers = init.headers ?? new Headers();
  }
}

/** Thrown when the request is malformed (400 `invalid_input`); the message names the field and the rule. */
export class InvalidInputError extends ApiError { override name = 'InvalidInputError'; }
/** Thrown when the API key is missing or not valid (401 `unauthorized`). */
export class UnauthorizedError extends ApiError { override name = 'UnauthorizedError'; }
/** Thrown when the record does not exist in the caller's scope (404 `not_found`). */
export class NotFoundError extends ApiError { override name = 'NotFoundError'; }
/** Thrown when the route does not take this method (405 `method_not_allowed`). */
export class MethodNotAllowedError extends ApiError { override name = 'MethodNotAllowedError'; }
/**
 * Thrown on 409 `conflict`: an Idempotency-Key reused with another request, a write to an owner
 * being erased or imported, an import into a non-empty scope.
 */
export class ConflictError extends ApiError { override name = 'ConflictError'; }
/** Thrown when a deprecated unversioned path is past its sunset (410 `gone`). */
export class GoneError extends ApiError { override name = 'GoneError'; }
/** Thrown when the body, media payload, caption or transcript is over its limit (413 `payload_too_large`). */
export class PayloadTooLargeError extends ApiError { override name = 'PayloadTooLargeError'; }
/** Thrown when media came without caller text and no safe captioning/transcription route exists (422). */
export class MediaProcessingUnavailableError extends ApiError { override name = 'MediaProcessingUnavailableError'; }
/** Thrown when the key's rate limit is reached (429 `rate_limited`) and retries did not help or are off. */
export class RateLimitedError extends ApiError {
  override name = 'RateLimitedError';
  /** Seconds the service asked to wait (`Retry-After`), or null when it did not say. */
  readonly retryAfter: number | null;
  constructor(init: ApiErrorInit) {
    super(init);
    this.retryAfter = parseRetryAfter(init.headers?.get('retry-after') ?? null);
  }
}
/** Thrown on 500 `internal`: a fault in the service. */
export class InternalError extends ApiError { override name = 'InternalError'; }
/** Thrown on 502 `provider_error`: a captioning, transcription or embedding provider failed. */
export class ProviderError extends ApiError { override name = 'ProviderError'; }
/** Thrown on 503 `unavailable`: the service (or a part of it, e.g. Temporal or a full disk) cannot serve now. */
export class UnavailableError extends ApiError { override name = 'UnavailableError'; }
/** Thrown on 421 `misdirected`: the scope is hosted by another node of a cluster. */
export class MisdirectedError extends ApiError { override name = 'MisdirectedError'; }

/** Thrown when no answer came: the connection failed (after the retries). */
export class ConnectionError extends EngramError {
  override name = 'ConnectionError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
/** Thrown when an attempt took longer than the client's `timeoutMs` (not retried: the work may still run). */
export class TimeoutError extends EngramError { override name = 'TimeoutError'; }

type ApiErrorClass = new (init: ApiErrorInit) => ApiError;

/**
 * One class per contract code. Typed as a Record over the generated enum, so that a code added to the
 * document fails the SDK's build until it has a class here.
 */
export const errorClasses: Record<ErrorCode, ApiErrorClass> = {
  invalid_input: InvalidInputError,
  unauthorized: UnauthorizedError,
  not_found: NotFoundError,
  method_not_allowed: MethodNotAllowedError,
  conflict: ConflictError,
  gone: GoneError,
  payload_too_large: PayloadTooLargeError,
  media_processing_unavailable: MediaProcessingUnavailableError,
  misdirected: MisdirectedError,
  rate_limited: RateLimitedError,
  internal: InternalError,
  provider_error: ProviderError,
  unavailable: UnavailableError,
};

/** Builds the typed error for a failed answer; a body that is not the error shape still gives a useful error. */
export function errorFromResponse(status: number, headers: Headers, body: unknown): ApiError {
  const shaped = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  const code = typeof shaped.code === 'string' ? shaped.code : fallbackCode(status);
  const message = typeof shaped.error === 'string' ? shaped.error : `HTTP ${status}`;
  const requestId = typeof shaped.request_id === 'string' ? shaped.request_id : headers.get('x-request-id');
  const Class = Object.hasOwn(errorClasses, code) ? errorClasses[code as ErrorCode] : ApiError;
  return new Class({ status, code, message, requestId, headers });
}

/** The code a status stands for, for answers without an error body (a proxy's 502, say). */
function fallbackCode(status: number): string {
  const byStatus: Record<number, string> = {
    400: 'invalid_input', 401: 'unauthorized', 404: 'not_found', 405: 'method_not_allowed', 409: 'conflict',
    410: 'gone', 413: 'payload_too_large', 421: 'misdirected', 422: 'media_processing_unavailable',
    429: 'rate_limited', 500: 'internal', 502: 'provider_error', 503: 'unavailable',
  };
  return byStatus[status] ?? 'unknown';
}

/** `Retry-After` as seconds: delta-seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | null {
  if (value === null || value.trim() === '') return null;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, (at - now) / 1000);
}
