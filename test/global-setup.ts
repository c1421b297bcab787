import type { TestProject } from 'vitest/node';
import { missingCliMessage, resolveTemporalCli } from '../src/temporal/cli.js';
import { startDevServer, type DevServer } from '../src/temporal/dev-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** `host:port` of the one Temporal dev server of this test run. */
    temporalAddress: string;
  }
}

let server: DevServer | null = null;

/**
 * Starts ONE real Temporal dev server (in memory, headless, free port) for the whole run; test files
 * connect to it with `inject('temporalAddress')` and each service instance uses its own task queue.
 * Finds the CLI as the service does (TEMPORAL_CLI_PATH, .tools/temporal, PATH) and fails clearly
 * when there is none.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const cli = resolveTemporalCli(process.env.TEMPORAL_CLI_PATH, process.env.PATH);
  if (!cli) throw new Error(`test run needs a Temporal dev server: ${missingCliMessage(process.env.TEMPORAL_CLI_PATH)}`);
  server = await startDevServer({
    cli: cli.path,
    port: 0,
    uiPort: 0,
    ui: false,
    dbFilename: null,
    logLevel: 'error',
    namespace: 'default',
    startupTimeoutMs: 90_000,
  });
  project.provide('temporalAddress', server.address);
  return async () => {
    await server?.stop();
    server = null;
  };
}
