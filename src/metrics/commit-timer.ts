import type { RootDatabase } from 'lmdb';

/**
 * Times every LMDB commit batch from its `beforecommit` until its writes are durable (`env.committed`, which
 * `handleBatchCommits` in src/store/lmdb.ts follows the same way). Not to the next `aftercommit`: lmdb-js
 * commits the batches queued while a transaction is under way in one transaction, so batches outnumber
 * `aftercommit`s; pairing them kept a timer for every batch in excess (a heap growing ~30 bytes per owner
 * written, bench:owners) and timed commits from batches long past.
 */
export function timeCommits(env: Pick<RootDatabase, 'on' | 'committed'>, histogram: { startTimer(): () => unknown }): void {
  env.on('beforecommit', () => {
    const end = histogram.startTimer();
    const ended = () => void end();
    queueMicrotask(() => void env.committed.then(ended, ended));
  });
}
