import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { missingCliMessage, resolveTemporalCli } from './cli.js';
import { startDevServer, type DevServer } from './dev-server.js';
import { forgetDevServer, recordDevServer, stopOrphanedDevServer } from './orphan.js';

/**
 * The embedded default (TEMPORAL_ADDRESS unset): `temporal server start-dev` persisted to
 * DATA_DIR/<db_filename>, its UI on `ui_port`, stopped with the service. Fails startup with a message
 * that says how to get a CLI when there is none.
 */
export async function embeddedDevServer(temporal: Config['temporal'], dataDir: string, log: Logger): Promise<DevServer> {
  const cli = resolveTemporalCli(temporal.cli.path, temporal.cli.searchPath);
  if (!cli) throw new Error(missingCliMessage(temporal.cli.path));
  const dev = temporal.dev_server;
  mkdirSync(dataDir, { recursive: true });
  const dbFilename = resolve(join(dataDir, dev.db_filename));
  const pidFile = join(dataDir, 'temporal-dev.pid');
  const orphan = await stopOrphanedDevServer(pidFile, dbFilename);
  if (orphan !== null) log.warn({ pid: orphan }, 'stopped a Temporal dev server left running by a previous crash');
  const server = await startDevServer({
    cli: cli.path,
    port: dev.port,
    uiPort: dev.ui_port,
    ui: dev.ui,
    dbFilename,
    logLevel: dev.log_level,
    namespace: temporal.namespace,
    startupTimeoutMs: dev.startup_timeout_ms,
    onOutput: (line) => log.debug({ temporal: line }, 'temporal dev server'),
  });
  recordDevServer(pidFile, server.pid);
  log.info({ address: server.address, ui: server.uiUrl, cli: cli.path, from: cli.from }, 'embedded Temporal dev server started');
  return {
    ...server,
    stop: async () => {
      await server.stop();
      forgetDevServer(pidFile);
    },
  };
}
