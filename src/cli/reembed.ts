import { loadConfig } from '../config.js';
import { runReembedSweep } from '../temporal/reembed-sweep.js';

/**
 * `npm run reembed [-- --no-wait]`: the operator's sweep. Run it with the node's own environment (the same
 * TEMPORAL_ADDRESS / TEMPORAL_CONFIG / TEMPORAL_TASK_QUEUE) while the node runs: the node finds its owners
 * with passages of another embedder and re-embeds them; this prints their progress until every one has
 * ended (exit 1 when one failed or the sweep was refused, e.g. on a node running the hashing fallback).
 */
async function main(): Promise<number> {
  const config = loadConfig();
  if (!config.temporal.enabled) throw new Error('TEMPORAL_ENABLED=false: re-embedding runs as Temporal workflows');
  const wait = !process.argv.includes('--no-wait');
  const outcome = await runReembedSweep(config.temporal, config.placement.nodeId, (line) => process.stdout.write(`${line}\n`), { wait });
  return outcome.failed > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`reembed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
