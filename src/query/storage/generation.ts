import { randomUUID } from 'node:crypto';
import { generationKey, type IndexDb } from './layout.js';

/**
 * A tenant's index generation: a value no earlier change stored, put by every transaction that changes
 * the tenant's field indexes. Two threads that read the same generation read the same index entries of
 * the tenant, whatever their snapshots (a helper thread's half of an aggregation is checked this way:
 * `parallel-groups.ts`). The process's random id keeps values unique across restarts without a read.
 */
const PROCESS = randomUUID();
let changes = 0;

/** Inside the transaction that changes tenant `t`'s indexes. */
export function markChanged(db: IndexDb, t: string): void {
  db.meta.put(generationKey(t), `${PROCESS}.${changes++}`);
}

/** The generation of the reading thread's snapshot (undefined: the indexes never changed since it was added). */
export function generation(db: IndexDb, t: string): string | undefined {
  return db.meta.get(generationKey(t)) as string | undefined;
}
