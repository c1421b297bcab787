import { randomUUID } from 'node:crypto';
import { Engram, type ClientOptions, type RetryInfo } from '@engram-memory/sdk';

/** The live service and keys `sdk/live-service.sh` exported. */
export const live = {
  baseUrl: required('ENGRAM_BASE_URL'),
  apiKey: required('ENGRAM_API_KEY'),
  adminKey: required('ENGRAM_ADMIN_KEY'),
  limitedKey: required('ENGRAM_LIMITED_KEY'),
  multiKey: required('ENGRAM_MULTI_KEY'),
};

/** Every operationId a test's client sent, for the coverage check that closes the suite. */
export const calledOperations = new Set<string>();

/** A client of the live service whose requests are recorded; extra hooks see them too. */
export function client(options: ClientOptions = {}): Engram {
  const hooks = options.hooks ?? {};
  return new Engram({
    baseUrl: live.baseUrl,
    apiKey: live.apiKey,
    ...options,
    hooks: {
      ...hooks,
      onRequest(info) {
        calledOperations.add(info.operationId);
        hooks.onRequest?.(info);
      },
    },
  });
}

/** A client that records its retries. */
export function retryRecordingClient(options: ClientOptions = {}): { engram: Engram; retries: RetryInfo[] } {
  const retries: RetryInfo[] = [];
  return { engram: client({ ...options, hooks: { ...options.hooks, onRetry: (info) => retries.push(info) } }), retries };
}

/** An owner id no other test (or earlier run against the same service) uses. */
export function ownerId(label: string): string {
  return `ts-${label}-${randomUUID().slice(0, 8)}`;
}

/** Polls `probe` until it returns a value other than undefined (the backfill, the erasure). */
export async function eventually<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not reached within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run the live suite through sdk/live-service.sh typescript`);
  return value;
}
