import { loadConfig } from '../config.js';
import { compactStore, CompactRefused } from '../store/compact.js';

/**
 * `npm run compact`: rewrites DATA_DIR's LMDB store without its free pages, with the node stopped (it
 * refuses while a service runs on DATA_DIR). Run it after erasing or hard-deleting content that must be
 * gone from the disk, not just unreachable (README.md, Erasure and encryption at rest).
 */
async function main(): Promise<number> {
  const { dataDir } = loadConfig();
  const { before, after } = await compactStore(dataDir);
  process.stdout.write(`compacted ${dataDir}/engram.mdb: ${before} → ${after} bytes\n`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    const reason = error instanceof CompactRefused || error instanceof Error ? error.message : String(error);
    process.stderr.write(`compact: ${reason}\n`);
    process.exit(1);
  },
);
