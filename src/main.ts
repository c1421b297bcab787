import { setFlagsFromString } from 'node:v8';
import { loadConfig } from './config.js';
import { startService } from './server.js';

/** Starts the service, reloads its keys on SIGHUP, and stops it cleanly on SIGINT/SIGTERM. */
async function main(): Promise<void> {
  const config = loadConfig();
  // Read by V8 each time it sizes the heap after a full collection, so setting it now, before the service
  // has allocated much, takes effect (bench:owners shows the committed heap following it).
  if (config.heapGrowingPercent > 0) setFlagsFromString(`--heap-growing-percent=${config.heapGrowingPercent}`);
  // SIGHUP re-reads API_KEYS_FILE. Its handler goes first: a SIGHUP would otherwise end a starting process,
  // and one that arrives while it starts is applied once it runs.
  let reloadAsked = false;
  let reloadKeys = (): void => {
    reloadAsked = true;
  };
  process.on('SIGHUP', () => reloadKeys());
  // SIGINT and SIGTERM too: one that arrives while the service starts (the embedded Temporal dev server
  // already spawned) stops it cleanly once it has started, rather than ending the process mid-way and
  // leaving the dev server behind.
  let stopAsked: string | undefined;
  let stop = (signal: string): void => {
    stopAsked ??= signal;
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  const service = await startService(config);
  reloadKeys = service.reloadKeys;
  if (reloadAsked) reloadKeys();
  let stopping = false;
  stop = (signal) => {
    if (stopping) return;
    stopping = true;
    service.deps.log.info({ signal }, 'shutting down');
    service.close().then(
      () => process.exit(0),
      (error: unknown) => {
        service.deps.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  if (stopAsked) stop(stopAsked);
}

main().catch((error: unknown) => {
  process.stderr.write(`engram failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
