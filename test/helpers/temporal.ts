import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { afterAll, beforeAll, inject } from 'vitest';

/** The workflows' source, as workers in tests bundle it. */
export const WORKFLOWS = fileURLToPath(new URL('../../workflows/index.ts', import.meta.url));

/** Activity timeouts and retries short enough for workflow tests with stand-in activities. */
export const QUICK_POLICY = { start_to_close_timeout_ms: 10_000, heartbeat_timeout_ms: 5_000, retry: { initial_interval_ms: 100, backoff_coefficient: 1, maximum_interval_ms: 100, maximum_attempts: 2 } };

/**
 * A client and a worker connection to the test run's dev server (test/global-setup.ts), opened before the
 * calling file's tests and closed after them; read them inside tests.
 */
export function useTemporal(): { readonly client: Client; readonly native: NativeConnection } {
  let connection: Connection | undefined;
  let client: Client | undefined;
  let native: NativeConnection | undefined;
  beforeAll(async () => {
    connection = await Connection.connect({ address: inject('temporalAddress') });
    client = new Client({ connection });
    native = await NativeConnection.connect({ address: inject('temporalAddress') });
  });
  afterAll(async () => {
    await native?.close();
    await connection?.close();
  });
  return {
    get client() {
      return client!;
    },
    get native() {
      return native!;
    },
  };
}
