import type { Database } from 'lmdb';
import type { Scope } from '../domain/scope.js';
import type { DocumentStore } from '../store/documents.js';
import { isFactStateKey } from '../store/graph.js';
import { removeKept } from '../store/idempotency.js';
import { KEY_MAX, scopeKey, type Key, type Store } from '../store/lmdb.js';
import { NO_COUNTS, type ErasureCounts } from '../store/owner-holds.js';
import type { VectorIndexes } from '../vector/indexes.js';

/** What a purge removed (the erasure's counts, less the workflow runs, which src/temporal deletes). */
export type PurgeCounts = Omit<ErasureCounts, 'workflow_runs'>;

/** A step run once every record of the owner is gone (say, destroying the owner's data key). */
export type PurgeFinalStep = (scope: Scope) => Promise<void>;

export interface PurgeDeps {
  store: Store;
  /** Hard deletes run the documents' write hooks (field index entries, coverage counts). */
  docs: DocumentStore;
  indexes: Pick<VectorIndexes, 'removeFiles'>;
  /** Drops the owner's actor without writing its index back (ActorRegistry fits). */
  actors: { drop(scope: Scope): Promise<void> };
  /** Run in order after the records and files are gone, before the purge resolves. */
  finalSteps?: readonly PurgeFinalStep[];
}

export interface PurgeOptions {
  /** Documents hard-deleted per transaction. */
  docsPerTransaction?: number;
  /** Other keys removed per transaction. */
  keysPerTransaction?: number;
  /** Called inside each transaction with what it removes, so progress commits with the deletes. */
  onBatch?: (removed: Partial<PurgeCounts>) => void;
  /** Called after each committed transaction (an activity heartbeats here). */
  heartbeat?: () => void;
  /** Stops after the transaction that passes this many ms (a slice of a long purge); unbounded when absent. */
  maxMs?: number;
}

/** What one call removed, and whether nothing of the owner is left (the final steps have run). */
export interface PurgeOutcome {
  removed: PurgeCounts;
  finished: boolean;
}

export const PURGE_DOCS_PER_TRANSACTION = 200;
export const PURGE_KEYS_PER_TRANSACTION = 2000;

/**
 * Removes everything of one owner from this node, in bounded transactions: its documents (each by the
 * document store's hard delete, so the field indexes and coverage counts follow), its staged media, then
 * every other key under its scope in both databases (entities, edges, facts and their history, passages,
 * cursors, index entries), the responses kept for its `Idempotency-Key`s, its vector index files, and then the final steps. The owner must be held
 * first (src/store/owner-holds.ts): nothing may write to it meanwhile. Each step deletes what is there,
 * so a purge cut short at any point (kill -9), or by `maxMs`, is finished by running it again.
 */
export async function purgeOwner(scope: Scope, deps: PurgeDeps, options: PurgeOptions = {}): Promise<PurgeOutcome> {
  const removed: PurgeCounts = { ...NO_COUNTS };
  const deadline = options.maxMs === undefined ? Infinity : Date.now() + options.maxMs;
  const { store, docs } = deps;
  const s = scopeKey(scope);
  /** Runs `work` over the next page of keys until none is left; false when the time ran out first. */
  const drain = async (next: () => Key[], work: (keys: Key[]) => Partial<PurgeCounts>): Promise<boolean> => {
    for (let keys = next(); keys.length > 0; keys = next()) {
      if (Date.now() >= deadline) return false;
      const done = await store.transaction(() => {
        const counted = work(keys);
        options.onBatch?.(counted);
        return counted;
      });
      for (const [kind, n] of Object.entries(done) as Array<[keyof PurgeCounts, number]>) removed[kind] += n;
      options.heartbeat?.();
      // Other owners' requests run between two transactions of a large purge.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    return true;
  };
  const page = (db: Database<unknown, Key> | Database<true, Key>, prefix: Key, limit: number) => () => keysUnderScope(db, prefix, limit);

  await deps.actors.drop(scope);
  const docsPer = options.docsPerTransaction ?? PURGE_DOCS_PER_TRANSACTION;
  const keysPer = options.keysPerTransaction ?? PURGE_KEYS_PER_TRANSACTION;
  const finished =
    (await drain(page(store.records, [...s, 'doc'], docsPer), (keys) => {
      let documents = 0;
      let passages = 0;
      for (const key of keys) {
        const doc = docs.get(scope, String(key.at(-1)));
        // A record the store cannot read back is removed as a key, so the purge always moves on.
        if (!doc) store.records.remove(key);
        else {
          passages += docs.hardDelete(scope, doc).length;
          documents++;
        }
      }
      return { documents, passages };
    })) &&
    (await drain(page(store.records, [...s, 'pending'], docsPer), (keys) => {
      for (const key of keys) {
        docs.removePending(scope, String(key.at(-1)));
        store.records.remove(key);
      }
      return { pending_media: keys.length };
    })) &&
    (await drain(page(store.records, s, keysPer), (keys) => removeKeys(store.records, keys))) &&
    (await drain(page(store.idempotency, s, keysPer), (keys) => ({ other_keys: keys.reduce((n, key) => n + removeKept(store.idempotency, key), 0) }))) &&
    (await drain(page(store.index, s, keysPer), (keys) => removeKeys(store.index, keys)));
  if (!finished) return { removed, finished };
  removed.vector_files += deps.indexes.removeFiles(scope);
  for (const step of deps.finalSteps ?? []) await step(scope);
  return { removed, finished };
}

function removeKeys(db: Database<unknown, Key> | Database<true, Key>, keys: Key[]): Partial<PurgeCounts> {
  for (const key of keys) db.remove(key);
  return countByKind(keys);
}

/** Up to `limit` keys under `prefix` (only its own: a key of another owner sorting inside the range is skipped). */
function keysUnderScope(db: Database<unknown, Key> | Database<true, Key>, prefix: Key, limit: number): Key[] {
  const out: Key[] = [];
  for (const raw of db.getKeys({ start: prefix, end: [...prefix, KEY_MAX] })) {
    const key = raw as Key;
    if (key.length <= prefix.length || !prefix.every((part, i) => key[i] === part)) continue;
    out.push(key);
    if (out.length >= limit) break;
  }
  return out;
}

/** Counts removed keys by what they are; the record kinds of src/store/graph.ts, documents.ts. */
function countByKind(keys: Key[]): Partial<PurgeCounts> {
  const out = { entities: 0, relationships: 0, facts: 0, passages: 0, other_keys: 0 };
  for (const key of keys) {
    const kind = isFactStateKey(key) ? 'other_keys' : (KIND_COUNTER[String(key[3])] ?? 'other_keys');
    out[kind]++;
  }
  return out;
}

const KIND_COUNTER: Record<string, 'entities' | 'relationships' | 'facts' | 'passages'> = { ent: 'entities', rel: 'relationships', fact: 'facts', psg: 'passages' };
