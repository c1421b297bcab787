import { mkdtempSync, rmSync } from 'node:fs';
import type { RequestListener } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import inject, { type InjectOptions } from 'light-my-request';
import { KeyRing } from '../../src/auth/keys.js';
import { ManualClock, type Clock } from '../../src/clock.js';
import { loadConfig } from '../../src/config.js';
import { createLogger, type Logger } from '../../src/log.js';
import type { AppDeps } from '../../src/http/context.js';
import { openApiCheck } from './openapi-check.js';
import { composeService, startService, type ComposedService, type RunningService } from '../../src/server.js';

/** Keys every integration test can use: two single-tenant keys and one multi-tenant key. */
export const KEYS = {
  acme: 'sk_test_acme_0123456789abcdef',
  /** An operator key of tenant acme (`"admin": true`). */
  acmeAdmin: 'sk_test_acme_admin_0123456789abcdef',
  globex: 'sk_test_globex_0123456789abcdef',
  platform: 'sk_test_platform_0123456789abcdef',
  clinic: 'sk_test_clinic_0123456789abcdef',
  limited: 'sk_test_limited_0123456789abcdef',
} as const;

export function testKeyRing(): KeyRing {
  return KeyRing.fromKeys([
    { key: KEYS.acme, tenant: 'acme', principal: 'acme-backend' },
    { key: KEYS.acmeAdmin, tenant: 'acme', principal: 'acme-operator', admin: true },
    { key: KEYS.globex, tenant: 'globex', principal: 'globex-backend' },
    { key: KEYS.platform, tenant: 'platform', principal: 'platform', multiTenant: true },
    { key: KEYS.clinic, tenant: 'clinic', principal: 'clinic-backend', phiStrict: true },
    { key: KEYS.limited, tenant: 'limited', principal: 'limited', rateLimit: { per_second: 1, burst: 3 } },
  ]);
}

export interface TestService {
  deps: AppDeps;
  dataDir: string;
  clock: Clock;
  /** A request to the service with a key (defaults to acme) and JSON handling. */
  call(method: string, path: string, options?: { key?: string | null; body?: unknown; rawBody?: string; headers?: Record<string, string> }): Promise<{ status: number; body: any; headers: Headers }>;
  close(): Promise<void>;
  stop(): Promise<void>;
}

/** A service listening on a real port: `call` goes through `fetch`, and `url` is there for raw requests. */
export interface SocketTestService extends TestService {
  url: string;
  /** With METRICS_PORT in `env`: the metrics listener's `GET /metrics`. */
  metricsUrl?: string;
}

export interface TestServiceOptions {
  /** Environment overrides (for example TEMPORAL_ADDRESS). */
  env?: Record<string, string>;
  clock?: Clock;
  dataDir?: string;
  /** Listen on a real port; say why at the call site (raw `fetch` of downloads, a separate process, ...). */
  socket?: boolean;
  /** The service's logger (default: silent); a test that reads the log passes one with its own destination. */
  log?: Logger;
  /** The service's keys (default: `testKeyRing()`). */
  keys?: KeyRing;
}

type Sent = { status: number; text: string; headers: Headers };
type Send = (method: string, path: string, headers: Record<string, string>, body: string | undefined) => Promise<Sent>;

/**
 * Starts the real service (real LMDB in a temporary DATA_DIR, real actors and jobs). By default
 * `call` dispatches into the Koa app in process, without a socket, as koa and hono test themselves;
 * `{ socket: true }` listens on a free port and `call` fetches over it.
 */
export async function startTestService(options: TestServiceOptions & { socket: true }): Promise<SocketTestService>;
export async function startTestService(options?: TestServiceOptions): Promise<TestService>;
export async function startTestService(options: TestServiceOptions = {}): Promise<TestService> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'engram-test-'));
  // The hashing embedder unless a test asks for the model (EMBEDDER=model in `env`): fast, and its rankings are known.
  const config = loadConfig({ DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'silent', TEMPORAL_ENABLED: 'false', EMBEDDER: 'hash', ...options.env });
  const clock = options.clock ?? { now: () => Date.now() };
  const serviceOptions = { clock, keys: options.keys ?? testKeyRing(), log: options.log ?? createLogger('silent') };
  const service: ComposedService | RunningService = options.socket ? await startService(config, serviceOptions) : await composeService(config, serviceOptions);
  // Temporal starts in the background; tests of jobs expect its first start (ready, or failed) behind them.
  await service.jobsStarted;
  const send = 'url' in service ? fetchOver(service.url) : injectInto(service.app.callback() as RequestListener);
  const call: TestService['call'] = async (method, path, opts = {}) => {
    const headers: Record<string, string> = { ...opts.headers };
    const key = opts.key === undefined ? KEYS.acme : opts.key;
    if (key !== null) headers.authorization = `Bearer ${key}`;
    let body: string | undefined = opts.rawBody;
    if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] ??= 'application/json';
    } else if (body !== undefined) {
      headers['content-type'] ??= 'application/json';
    }
    const res = await send(method, path, headers, body);
    let parsed: unknown = res.text;
    try {
      parsed = res.text ? JSON.parse(res.text) : undefined;
    } catch {
      /* non-JSON bodies (downloads) stay text */
    }
    openApiCheck().check(method, path, res.status, res.headers.get('content-type'), res.text);
    return { status: res.status, body: parsed, headers: res.headers };
  };
  return {
    ...('url' in service ? { url: service.url, ...(service.metricsUrl ? { metricsUrl: service.metricsUrl } : {}) } : {}),
    deps: service.deps,
    close: service.close,
    dataDir,
    clock,
    call,
    stop: async () => {
      await service.close();
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

function fetchOver(url: string): Send {
  return async (method, path, headers, body) => {
    const res = await fetch(`${url}${path}`, { method, headers, body });
    return { status: res.status, text: await res.text(), headers: res.headers };
  };
}

/**
 * Requests injected into the app's Node handler by light-my-request, with what fetch would add that
 * the app reads: a Content-Length for every body, and 0 for a POST or PUT without one. The answer is
 * decoded like fetch's `text()` (UTF-8, BOM dropped) and its headers put in a `Headers`.
 */
function injectInto(handler: RequestListener): Send {
  return async (method, path, headers, body) => {
    const verb = method.toUpperCase();
    const length = body !== undefined ? Buffer.byteLength(body) : verb === 'POST' || verb === 'PUT' ? 0 : undefined;
    const res = await inject(handler, {
      method: verb as InjectOptions['method'],
      url: path,
      headers: length === undefined ? headers : { ...headers, 'content-length': String(length) },
      ...(body ? { payload: body } : {}),
    });
    const answer = new Headers();
    for (const [name, value] of Object.entries(res.headers)) {
      for (const one of [value ?? []].flat()) answer.append(name, String(one));
    }
    return { status: res.statusCode, text: new TextDecoder().decode(res.rawPayload), headers: answer };
  };
}

export { ManualClock };
