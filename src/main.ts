import { loadConfig } from './config.js';
import { startService } from './server.js';

/** Starts the service and stops it cleanly on SIGINT/SIGTERM. */
async function main(): Promise<void> {
  const config = loadConfig();
  const service = await startService(config);
  let stopping = false;
  const stop = (signal: string) => {
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
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((error: unknown) => {
  process.stderr.write(`engram failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
