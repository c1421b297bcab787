import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KeyRing } from '../../src/auth/keys.js';
import { ManualClock, type Clock } from '../../src/clock.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { startService, type RunningService } from '../../src/server.js';

/** Keys every integration test can use: two single-tenant keys and one multi-tenant key. */
export const KEYS = {
  acme: 'sk_test_acme_0123456789abcdef',
  globex: 'sk_test_globex_0123456789abcdef',
  platform: 'sk_test_platform_0123456789abcdef',
  clinic: 'sk_test_clinic_0123456789abcdef',
  limited: 'sk_test_limited_0123456789abcdef',
} as const;

export function testKeyRing(): KeyRing {
  return KeyRing.fromKeys([
    { key: KEYS.acme, tenant: 'acme', principal: 'acme-backend' },
    { key: KEYS.globex, tenant: 'globex', principal: 'globex-backend' },
    { key: KEYS.platform, tenant: 'platform', principal: 'platform', multiTenant: true },
    { key: KEYS.clinic, tenant: 'clinic', principal: 'clinic-backend', phiStrict: true },
    { key: KEYS.limited, tenant: 'limited', principal: 'limited', rateLimit: { per_second: 1, burst: 3 } },
  ]);
}

export interface TestService extends RunningService {
  dataDir: string;
  clock: Clock;
  /** fetch against the service with a key (defaults to acme) and JSON handling. */
  call(method: string, path: string, options?: { key?: string | null; body?: unknown; rawBody?: string; headers?: Record<string, string> }): Promise<{ status: number; body: any; headers: Headers }>;
  stop(): Promise<void>;
}

/**
 * Starts the real service (real HTTP server on a free port, real LMDB in a temporary DATA_DIR).
 * `env` overrides environment settings (for example TEMPORAL_ADDRESS).
 */
export async function startTestService(
  options: { env?: Record<string, string>; clock?: Clock; dataDir?: string } = {},
): Promise<TestService> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'engram-test-'));
  const config = loadConfig({ DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'silent', TEMPORAL_ENABLED: 'false', ...options.env });
  const clock = options.clock ?? { now: () => Date.now() };
  const service = await startService(config, { clock, keys: testKeyRing(), log: createLogger('silent') });
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
    const res = await fetch(`${service.url}${path}`, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      /* non-JSON bodies (downloads) stay text */
    }
    return { status: res.status, body: parsed, headers: res.headers };
  };
  return {
    ...service,
    dataDir,
    clock,
    call,
    stop: async () => {
      await service.close();
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export { ManualClock };
