import { ConnectionError, TimeoutError, errorFromResponse, parseRetryAfter } from './errors.js';
import { backoffDelayMs, newIdempotencyKey, sleep } from './retry.js';
import type { OperationId, RequestOptions, WriteOptions } from './types.js';

/** What the hooks are told; they observe, they never change a request. */
export interface RequestInfo {
  operationId: OperationId;
  method: string;
  url: string;
  /** 0 for the first attempt, then 1, 2, … */
  attempt: number;
  idempotencyKey: string | null;
}
export interface ResponseInfo extends RequestInfo {
  status: number;
  headers: Headers;
}
export interface RetryInfo extends RequestInfo {
  /** The status that is retried, or null after a connection error. */
  status: number | null;
  error: unknown;
  /** How long the client waits before the next attempt. */
  delayMs: number;
  /** The server's `Retry-After`, in seconds, when it sent one. */
  retryAfter: number | null;
}
export interface Hooks {
  onRequest?(info: RequestInfo): void;
  onResponse?(info: ResponseInfo): void;
  onRetry?(info: RetryInfo): void;
}

export interface TransportSettings {
  baseUrl: string;
  apiKey: string;
  timeoutMs: number;
  maxRetries: number;
  retryBaseDelayMs: number;
  maxRetryDelayMs: number;
  fetch: typeof fetch;
  hooks: Hooks;
  userAgent: string;
}

export type QueryValue = string | number | boolean | readonly string[] | null | undefined;

/** One logical call; the transport may send it several times. */
export interface Call {
  operationId: OperationId;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  query?: Record<string, QueryValue>;
  /** A JSON value, serialised once. */
  json?: unknown;
  /** A raw body (NDJSON import); it must be re-sendable (string, bytes or Blob) to be retried. */
  raw?: { body: BodyInit; contentType: string };
  /** A POST that writes: it carries an Idempotency-Key, the same on every retry. */
  write?: boolean;
  options?: RequestOptions & WriteOptions;
}

const RETRYABLE_STATUSES = new Set([429, 502, 503]);

/**
 * Sends calls: auth, user agent, timeouts, retries with backoff and jitter (429 after `Retry-After`,
 * 502, 503, connection errors) and the Idempotency-Key that makes a retried write apply once.
 */
export class Transport {
  constructor(readonly settings: TransportSettings) {}

  /** The answer's JSON (undefined for 204). */
  async json<T>(call: Call): Promise<T> {
    const response = await this.send(call, 'body');
    if (response.status === 204) return undefined as T;
    return (await response.json()) as T;
  }

  /** The answer itself, for streamed bodies (downloads, exports); its timeout ends with the headers. */
  async stream(call: Call): Promise<Response> {
    return this.send(call, 'headers');
  }

  private async send(call: Call, timeoutCovers: 'body' | 'headers'): Promise<Response> {
    const { settings } = this;
    const options = call.options ?? {};
    const url = this.url(call.path, call.query);
    const idempotencyKey = call.write ? (options.idempotencyKey ?? newIdempotencyKey()) : null;
    const headers = this.headers(call, idempotencyKey);
    const body = call.json !== undefined ? JSON.stringify(call.json) : call.raw?.body;
    const resendable = !(body instanceof ReadableStream);
    const maxRetries = resendable ? (options.maxRetries ?? settings.maxRetries) : 0;
    const timeoutMs = options.timeoutMs ?? settings.timeoutMs;

    for (let attempt = 0; ; attempt++) {
      const info: RequestInfo = { operationId: call.operationId, method: call.method, url, attempt, idempotencyKey };
      settings.hooks.onRequest?.(info);
      const attemptSignal = new AttemptSignal(timeoutMs, options.signal);
      let response: Response;
      try {
        response = await settings.fetch(url, { method: call.method, headers, body, signal: attemptSignal.signal, ...duplexFor(body) });
      } catch (error) {
        attemptSignal.done();
        if (options.signal?.aborted) throw options.signal.reason ?? error;
        if (attemptSignal.timedOut) throw new TimeoutError(`${call.operationId}: no answer within ${timeoutMs} ms`);
        if (attempt >= maxRetries) {
          throw new ConnectionError(`${call.operationId}: could not reach ${settings.baseUrl}: ${describe(error)}`, { cause: error });
        }
        const delayMs = backoffDelayMs(attempt, settings.retryBaseDelayMs, settings.maxRetryDelayMs);
        settings.hooks.onRetry?.({ ...info, status: null, error, delayMs, retryAfter: null });
        await sleep(delayMs, options.signal);
        continue;
      }
      settings.hooks.onResponse?.({ ...info, status: response.status, headers: response.headers });
      if (response.ok) {
        if (timeoutCovers === 'headers') {
          attemptSignal.done();
          return response;
        }
        return attemptSignal.until(response);
      }
      const error = errorFromResponse(response.status, response.headers, await readErrorBody(response));
      attemptSignal.done();
      const retry = this.retryPlan(response, attempt, maxRetries);
      if (retry === null) throw error;
      settings.hooks.onRetry?.({ ...info, status: response.status, error, delayMs: retry.delayMs, retryAfter: retry.retryAfter });
      await sleep(retry.delayMs, options.signal);
    }
  }

  /** When (and whether) a failed answer is retried: `Retry-After` wins over the computed backoff. */
  private retryPlan(response: Response, attempt: number, maxRetries: number): { delayMs: number; retryAfter: number | null } | null {
    const retryAfter = parseRetryAfter(response.headers.get('retry-after'));
    // A 409 with Retry-After: the Idempotency-Key's first request is still running; its replay will come.
    const inProgress = response.status === 409 && retryAfter !== null;
    if ((!RETRYABLE_STATUSES.has(response.status) && !inProgress) || attempt >= maxRetries) return null;
    const backoff = backoffDelayMs(attempt, this.settings.retryBaseDelayMs, this.settings.maxRetryDelayMs);
    if (retryAfter === null) return { delayMs: backoff, retryAfter };
    // Waiting longer than the client allows is the caller's decision: the error carries retryAfter.
    if (retryAfter * 1000 > this.settings.maxRetryDelayMs) return null;
    // A little jitter on top, never below what the server asked, so that clients do not return in step.
    return { delayMs: Math.ceil(retryAfter * 1000 + Math.random() * Math.min(250, backoff)), retryAfter };
  }

  private url(path: string, query: Record<string, QueryValue> | undefined): string {
    const url = new URL(this.settings.baseUrl.replace(/\/+$/, '') + path);
    for (const [name, value] of Object.entries(query ?? {})) {
      if (value === undefined || value === null) continue;
      url.searchParams.set(name, Array.isArray(value) ? value.join(',') : String(value));
    }
    return url.toString();
  }

  private headers(call: Call, idempotencyKey: string | null): Headers {
    const headers = new Headers({ Authorization: `Bearer ${this.settings.apiKey}`, Accept: 'application/json' });
    // In a browser the page's own agent stands; a script's User-Agent would also need a CORS preflight
    // allowance the service does not give.
    if (!inBrowser()) headers.set('User-Agent', this.settings.userAgent);
    if (call.json !== undefined) headers.set('Content-Type', 'application/json');
    if (call.raw) headers.set('Content-Type', call.raw.contentType);
    if (idempotencyKey !== null) headers.set('Idempotency-Key', idempotencyKey);
    return headers;
  }
}

/** An attempt's signal: the caller's signal or the attempt's timeout, whichever comes first. */
class AttemptSignal {
  private readonly controller = new AbortController();
  private readonly timer: ReturnType<typeof setTimeout>;
  private readonly forward = () => this.controller.abort(this.outer?.reason);
  timedOut = false;

  constructor(timeoutMs: number, private readonly outer: AbortSignal | undefined) {
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.controller.abort(new TimeoutError(`no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    if (outer?.aborted) this.controller.abort(outer.reason);
    outer?.addEventListener('abort', this.forward, { once: true });
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Keeps the timeout over the body: the answer is read in full before the timer is released. */
  async until(response: Response): Promise<Response> {
    try {
      const bytes = await response.arrayBuffer();
      return new Response(response.status === 204 ? null : bytes, { status: response.status, headers: response.headers });
    } catch (error) {
      if (this.timedOut) throw new TimeoutError(`the answer's body did not arrive in time`);
      throw error;
    } finally {
      this.done();
    }
  }

  done(): void {
    clearTimeout(this.timer);
    this.outer?.removeEventListener('abort', this.forward);
  }
}

function inBrowser(): boolean {
  const scope = globalThis as { document?: unknown; WorkerGlobalScope?: unknown };
  return scope.document !== undefined || scope.WorkerGlobalScope !== undefined;
}

async function readErrorBody(response: Response): Promise<unknown> {
  try {
    const text = await response.text();
    return text === '' ? null : JSON.parse(text);
  } catch {
    return null;
  }
}

/** Node's fetch needs `duplex: 'half'` to send a stream; other bodies need nothing. */
function duplexFor(body: BodyInit | undefined): Record<string, string> {
  return body instanceof ReadableStream ? { duplex: 'half' } : {};
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: unknown }).cause;
    return cause instanceof Error ? `${error.message} (${cause.message})` : error.message;
  }
  return String(error);
}
