/** Machine codes of every error the service answers with (DECISIONS.md, Errors). */
export type ErrorCode =
  | 'invalid_input'
  | 'unauthorized'
  | 'not_found'
  | 'gone'
  | 'payload_too_large'
  | 'media_processing_unavailable'
  | 'rate_limited'
  | 'internal'
  | 'provider_error'
  | 'unavailable';

const STATUS_BY_CODE: Record<ErrorCode, number> = {
  invalid_input: 400,
  unauthorized: 401,
  not_found: 404,
  gone: 410,
  payload_too_large: 413,
  media_processing_unavailable: 422,
  rate_limited: 429,
  internal: 500,
  provider_error: 502,
  unavailable: 503,
};

export interface AppErrorOptions {
  cause?: unknown;
  /** Whether the message may reach the client. Defaults to true for 4xx, false for 5xx. */
  expose?: boolean;
  headers?: Record<string, string>;
}

/**
 * The one error type of the service. Thrown (never returned) anywhere; the HTTP error middleware alone
 * turns it into `{ error, code, request_id }`. Messages of non-exposed errors are replaced by a generic
 * text so internals never leak.
 */
export class AppError extends Error {
  readonly status: number;
  readonly expose: boolean;
  readonly headers: Record<string, string>;

  constructor(
    readonly code: ErrorCode,
    message: string,
    options: AppErrorOptions = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.status = STATUS_BY_CODE[code];
    this.expose = options.expose ?? this.status < 500;
    this.headers = options.headers ?? {};
  }
}

/** Thrown when a request is malformed; the message names the field and the rule. */
export const invalidInput = (message: string): AppError => new AppError('invalid_input', message);

/** Thrown when a record does not exist in the caller's scope (also for records of other scopes). */
export const notFound = (what: string): AppError => new AppError('not_found', `${what} not found`);

/** Thrown when a dependency (Temporal, a provider) cannot serve the request right now. */
export const unavailable = (message: string, cause?: unknown): AppError =>
  new AppError('unavailable', message, { cause, expose: true });

export function assertUnreachable(value: never): never {
  throw new Error(`unreachable: ${JSON.stringify(value)}`);
}
