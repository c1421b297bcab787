import { resolveTemporalCli } from '../../src/temporal/cli.js';
import { startDevServer } from '../../src/temporal/dev-server.js';

/** A Temporal frontend for a benchmark, and how to let go of it. */
export interface BenchTemporal {
  address: string;
  stop(): Promise<void>;
}

/**
 * TEMPORAL_ADDRESS when set (nothing to stop), else a private in-memory dev server, headless, from the
 * CLI found as the service finds it.
 */
export async function benchTemporal(): Promise<BenchTemporal> {
  const address = process.env.TEMPORAL_ADDRESS;
  if (address) return { address, stop: async () => undefined };
  const cli = resolveTemporalCli(process.env.TEMPORAL_CLI_PATH, process.env.PATH);
  if (!cli) throw new Error('no Temporal CLI: run npm install, or set TEMPORAL_ADDRESS');
  const dev = await startDevServer({ cli: cli.path, port: 0, uiPort: 0, ui: false, dbFilename: null, logLevel: 'error', namespace: 'default', startupTimeoutMs: 60_000 });
  return { address: dev.address, stop: () => dev.stop() };
}
