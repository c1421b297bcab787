/** Machine codes of every error the service answers with (DECISIONS.md, Errors). */
export const ERROR_CODES = [
  'invalid_input',
  'unauthorized',
  'not_found',
  'method_not_allowed',
  'conflict',
  'gone',
  'payload_too_large',
  'media_processing_unavailable',
  'rate_limited',
  'misdirected',
  'internal',
  'provider_error',
  'unavailable',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** The HTTP status each code answers with. */
export const STATUS_BY_CODE: Readonly<Record<ErrorCode, number>> = {
  invalid_input: 400,
  unauthorized: 401,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  gone: 410,
  payload_too_large: 413,
  media_processing_unavailable: 422,
  rate_limited: 429,
  misdirected: 421,
  internal: 500,
  provider_error: 502,
  unavailable: 503,
};

/**
 * Whether a retry may fix an error of this code: never for 4xx (bad input or a missing record stays
 * so), possibly for 5xx. The one rule behind the activities' failures and the workflows' retry
 * policy; a 5xx thrower that knows better says `retryable: false`. This file imports nothing, so
 * workflow code may import it.
 */
export function isRetryable(code: ErrorCode): boolean {
  return STATUS_BY_CODE[code] >= 500;
}

/** The codes no retry can fix (the workflows' `nonRetryableErrorTypes`). */
export const NON_RETRYABLE_CODES: readonly ErrorCode[] = ERROR_CODES.filter((code) => !isRetryable(code));

export interface AppErrorOptions {
  cause?: unknown;
  /** Whether the message may reach the client. Defaults to true for 4xx, false for 5xx. */
  expose?: boolean;
  headers?: Record<string, string>;
  /** `false` when a retry cannot help although the code would allow one (a provider refusing the input). */
  retryable?: false;
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
  /** Whether a job may retry the work that threw this: `isRetryable(code)` unless the thrower said `false`. */
  readonly retryable: boolean;

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
    this.retryable = options.retryable ?? isRetryable(code);
  }
}

/** Thrown when a request is malformed; the message names the field and the rule. */
export const invalidInput = (message: string): AppError => new AppError('invalid_input', message);

/** Thrown when a record does not exist in the caller's scope (also for records of other scopes). */
export const notFound = (what: string): AppError => new AppError('not_found', `${what} not found`);

/** Thrown when a request collides with the state of the owner: a write while it is being erased or imported, an import into an owner that is not empty. */
export const conflict = (message: string): AppError => new AppError('conflict', message);

/** 503: the node cannot serve this now. `retryAfterS` becomes `Retry-After` when a retry later may succeed. */
export const unavailable = (message: string, cause?: unknown, retryAfterS?: number): AppError =>
  new AppError('unavailable', message, { cause, expose: true, ...(retryAfterS === undefined ? {} : { headers: { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterS))) } }) });

export function assertUnreachable(value: never): never {
  throw new Error(`unreachable: ${JSON.stringify(value)}`);
}
