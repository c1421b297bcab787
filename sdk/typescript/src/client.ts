import { EngramError } from './errors.js';
import { TenantScope } from './tenant.js';
import { type Hooks, Transport } from './transport.js';
import type { RequestOptions, ServiceIndex, Status } from './types.js';
import { USER_AGENT } from './version.js';

export interface ClientOptions {
  /** The service's address, e.g. `https://engram.example.com`. Default: `ENGRAM_BASE_URL`. */
  baseUrl?: string;
  /** A tenant's API key. Default: `ENGRAM_API_KEY`. A browser holding a key exposes it: see the README. */
  apiKey?: string;
  /** Per attempt, in milliseconds (default 60000). */
  timeoutMs?: number;
  /** Retries after 429, 502, 503 and connection errors (default 3; 0 disables). */
  maxRetries?: number;
  /** First backoff step in milliseconds (default 500), doubled each retry, with jitter. */
  retryBaseDelayMs?: number;
  /** Longest wait before a retry, in milliseconds (default 30000); a longer `Retry-After` is not waited for. */
  maxRetryDelayMs?: number;
  /** A fetch of your own (a proxy agent, a test double). Default: the platform's fetch. */
  fetch?: typeof fetch;
  /** Observers of requests, answers and retries (logging, metrics). */
  hooks?: Hooks;
}

const DEFAULTS = { timeoutMs: 60_000, maxRetries: 3, retryBaseDelayMs: 500, maxRetryDelayMs: 30_000 };

/** Thrown when the client cannot be built: no API key or base URL, given or in the environment. */
export class ConfigurationError extends EngramError {
  override name = 'ConfigurationError';
}

/**
 * The Engram client. Tenant-wide: `schema`, `query`, `erasure`; per owner: `owner(id)`; per partition:
 * `partition(name)`, whose schema, query and owners are scoped to it.
 */
export class Engram extends TenantScope {
  constructor(options: ClientOptions = {}) {
    const baseUrl = options.baseUrl ?? env('ENGRAM_BASE_URL');
    const apiKey = options.apiKey ?? env('ENGRAM_API_KEY');
    if (!apiKey) throw new ConfigurationError('No API key: pass { apiKey } to new Engram() or set ENGRAM_API_KEY');
    if (!baseUrl) throw new ConfigurationError('No base URL: pass { baseUrl } to new Engram() or set ENGRAM_BASE_URL');
    if (!/^https?:\/\//i.test(baseUrl)) throw new ConfigurationError(`baseUrl must be an http(s) URL, got ${JSON.stringify(baseUrl)}`);
    const maxRetries = options.maxRetries ?? DEFAULTS.maxRetries;
    if (!Number.isInteger(maxRetries) || maxRetries < 0) throw new ConfigurationError(`maxRetries must be a whole number ≥ 0, got ${maxRetries}`);
    const transport = new Transport({
      baseUrl,
      apiKey,
      timeoutMs: options.timeoutMs ?? DEFAULTS.timeoutMs,
      maxRetries,
      retryBaseDelayMs: options.retryBaseDelayMs ?? DEFAULTS.retryBaseDelayMs,
      maxRetryDelayMs: options.maxRetryDelayMs ?? DEFAULTS.maxRetryDelayMs,
      fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
      hooks: options.hooks ?? {},
      userAgent: USER_AGENT,
    });
    super(transport, undefined);
  }

  /** A handle whose schema, query, erasures and owners are scoped to one partition. */
  partition(name: string): TenantScope {
    return new TenantScope(this.transport, name);
  }

  /** The service's OpenAPI 3.1 document. */
  openapi(options?: RequestOptions): Promise<{ openapi: string; [key: string]: unknown }> {
    return this.transport.json({ operationId: 'getOpenApi', method: 'GET', path: '/v1/openapi.json', options });
  }

  /** The public health probe: store, Temporal and embedder readiness. */
  status(options?: RequestOptions): Promise<Status> {
    return this.transport.json({ operationId: 'getStatus', method: 'GET', path: '/status', options });
  }

  /** The service's name, API version and where its docs are. */
  index(options?: RequestOptions): Promise<ServiceIndex> {
    return this.transport.json({ operationId: 'getIndex', method: 'GET', path: '/', options });
  }
}

/** An environment variable where there is an environment (Node, Deno, Bun); browsers have none. */
function env(name: string): string | undefined {
  const process = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process;
  const value = process?.env?.[name];
  return value === '' ? undefined : value;
}
