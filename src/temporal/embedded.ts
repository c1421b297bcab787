import { join, resolve } from 'node:path';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { closeFile, privateDir } from '../store/private-files.js';
import { missingCliMessage, resolveTemporalCli } from './cli.js';
import { startDevServer } from './dev-server.js';
import { DevServerSupervisor } from './dev-server-supervisor.js';
import { forgetDevServer, recordDevServer, stopOrphanedDevServer } from './orphan.js';

/**
 * The embedded default (TEMPORAL_ADDRESS unset): `temporal server start-dev` persisted to
 * DATA_DIR/<db_filename>, its UI on `ui_port`, supervised (restarted on the same ports and database
 * when it dies) and stopped with the service. Throws at once, with a message that says how to get a
 * CLI, when there is none; the server itself starts when the supervisor is started.
 */
export function embeddedDevServer(temporal: Config['temporal'], dataDir: string, log: Logger): DevServerSupervisor {
  const cli = resolveTemporalCli(temporal.cli.path, temporal.cli.searchPath);
  if (!cli) throw new Error(missingCliMessage(temporal.cli.path));
  const dev = temporal.dev_server;
  privateDir(dataDir);
  const dbFilename = resolve(join(dataDir, dev.db_filename));
  // Written 0644 by earlier versions; the server creates new ones owner-only (dev-server.ts).
  for (const suffix of ['', '-wal', '-shm', '-journal']) closeFile(`${dbFilename}${suffix}`);
  const pidFile = join(dataDir, 'temporal-dev.pid');
  let orphanChecked = false;
  return new DevServerSupervisor({
    log,
    start: async (ports, signal) => {
      if (!orphanChecked) {
        const orphan = await stopOrphanedDevServer(pidFile, dbFilename);
        if (orphan !== null) log.warn({ pid: orphan }, 'stopped a Temporal dev server left running by a previous crash');
        orphanChecked = true;
      }
      return startDevServer({
        cli: cli.path,
        port: ports?.port ?? dev.port,
        uiPort: ports?.uiPort ?? dev.ui_port,
        ui: dev.ui,
        dbFilename,
        logLevel: dev.log_level,
        namespace: temporal.namespace,
        startupTimeoutMs: dev.startup_timeout_ms,
        onOutput: (line) => log.debug({ temporal: line }, 'temporal dev server'),
        signal,
      });
    },
    onStarted: (server) => {
      recordDevServer(pidFile, server.pid);
      log.info({ address: server.address, ui: server.uiUrl, cli: cli.path, from: cli.from, pid: server.pid }, 'embedded Temporal dev server started');
    },
    onStopped: () => forgetDevServer(pidFile),
  });
}
