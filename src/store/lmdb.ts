import { join } from 'node:path';
import { open, type Database, type RootDatabase } from 'lmdb';
import type { Scope } from '../domain/scope.js';
import { BlobCipher, loadMasterKey } from './blobs.js';
import { committed, quietCommitFailure } from './commit-failure.js';
import { ContentRecords } from './content.js';
import { OwnerKeys } from './owner-keys.js';
import { closeFile, PRIVATE_FILE, privateDir } from './private-files.js';

/** lmdb-js orders array keys element by element: numbers before strings. */
export type KeyPart = string | number;
export type Key = KeyPart[];

/** Sorts after every number and every string a key part holds here. */
export const KEY_MAX = '\uffff';

/**
 * The one LMDB environment of the service.
 *
 * Guarantees: `transaction(fn)` runs `fn` in the shared write queue, in call order, batched with other
 * writes issued in the same turn; the promise resolves after the commit is durable. A throw inside `fn`
 * before it writes rejects that call only; `fn` must therefore decide everything before its first put.
 * A commit the disk refuses (full) rejects every call in it with 503 `unavailable` (src/store/commit-failure.ts),
 * stores none of their writes, and leaves the store working: reads go on, later commits succeed once
 * there is room. Reads outside a transaction see the latest committed snapshot.
 */
export interface Store {
  readonly env: RootDatabase;
  /** The environment's data file (other threads of the process open it there: lmdb-js shares it). */
  readonly path: string;
  /** Primary records: `[...scope, kind, id] → record`. */
  readonly records: Database<unknown, Key>;
  /** Secondary entries: `[...scope, index, ...sort parts, id] → true`. */
  readonly index: Database<true, Key>;
  /** `records` as their content: sealed under the owners' data keys, or in clear (src/store/content.ts). */
  readonly content: ContentRecords;
  /** Responses kept for `Idempotency-Key` (src/store/idempotency.ts); an owner's purge removes its own. */
  readonly idempotency: Database<unknown, Key>;
  /** The owners' data keys; `keys.destroy(scope)` makes the owner's sealed records unreadable for good. */
  readonly keys: OwnerKeys;
  /** Media bytes sealed with the tenant key: the format with encryption at rest off, and before owner keys. */
  readonly blobs: BlobCipher;
  transaction<T>(fn: () => T): Promise<T>;
  close(): Promise<void>;
}

/**
 * How commits reach the disk. `full` (default): every commit batch fsyncs its data and metadata pages
 * before any of its writes is acknowledged. `data`: the metadata page follows with the next commit
 * (LMDB's NOMETASYNC): the database stays consistent after any crash and killed processes lose nothing,
 * but an OS crash or power loss can undo the last commit batch. Measured with bench/facts-http.ts: no
 * difference on a quiet machine, up to +60% writes/s when the disk is contended.
 */
export type StoreSync = 'data' | 'full';

/** Encryption at rest of the owners' content: the master key, and whether writes are sealed (CONTENT_ENCRYPTION). */
export interface ContentOptions {
  masterKey: Buffer;
  encrypt: boolean;
}

/** Opens the store; without `content`, the master key of DATA_DIR (made on first use) and encryption on. */
export function openStore(dataDir: string, sync: StoreSync = 'full', content?: ContentOptions): Store {
  privateDir(dataDir);
  const path = join(dataDir, 'engram.mdb');
  // `permissionsMode` (the mode LMDB creates the data and lock files with) is read by lmdb-js's native
  // open (src/env.cpp) but missing from its typings: passed in a variable, not a literal.
  const options = { path, maxDbs: 64, compression: false, noMetaSync: sync === 'data', permissionsMode: PRIVATE_FILE };
  const env = open(options);
  for (const file of [path, `${path}-lock`]) closeFile(file);
  handleBatchCommits(env);
  // Shared msgpack structures: records of one shape are decoded ~4x faster than with inline definitions.
  const records = env.openDB<unknown, Key>({ name: 'records', sharedStructuresKey: Symbol.for('structures') });
  const index = env.openDB<true, Key>({ name: 'index' });
  const { masterKey, encrypt } = content ?? { masterKey: loadMasterKey(undefined, dataDir), encrypt: true };
  const keys = new OwnerKeys(env, env.openDB<unknown, Key>({ name: 'owner_keys' }), dataDir, masterKey);
  // Slots allocated for a batch are durable before it commits: plain puts commit after `beforecommit`,
  // a transaction's callback runs after it (lmdb-js), so it flushes when it ends.
  env.on('beforecommit', () => keys.flush());
  const flushed = <T>(fn: () => T) => () => {
    try {
      return fn();
    } finally {
      keys.flush();
    }
  };
  return {
    env,
    path,
    records,
    index,
    idempotency: env.openDB<unknown, Key>({ name: 'idempotency' }),
    content: new ContentRecords(records, keys, encrypt),
    keys,
    blobs: new BlobCipher(masterKey),
    transaction: <T>(fn: () => T) => committed(env.transaction(flushed(fn)) as Promise<T>),
    close: async () => {
      await env.close();
      keys.close();
    },
  };
}

/**
 * lmdb-js (3.5) opens each event-turn batch with a write of its own whose promise it hands to no one, and
 * rejects it when the batch's commit fails: an unhandled rejection, and Node exits. That promise is made
 * right after the batch's `beforecommit` listeners run, in the same task, and is then `env.committed`:
 * a microtask queued by the listener finds it there and handles it. The writes' own promises still
 * reject for their callers.
 */
function handleBatchCommits(env: RootDatabase): void {
  env.on('beforecommit', () => queueMicrotask(() => void env.committed.then(undefined, quietCommitFailure)));
}

export function scopeKey(scope: Scope): Key {
  return [scope.tenant, scope.partition ?? '', scope.entityId];
}

/** Iterates the keys under `prefix`, ascending or descending, optionally from a bound within it. */
export function* keysUnder(
  db: Database<true, Key>,
  prefix: Key,
  options: { reverse?: boolean; from?: Key } = {},
): Generator<Key> {
  const low = prefix;
  const high = [...prefix, KEY_MAX];
  const range = options.reverse
    ? { start: options.from ? [...prefix, ...options.from, KEY_MAX] : high, end: low, reverse: true }
    : { start: options.from ? [...prefix, ...options.from] : low, end: high };
  for (const key of db.getKeys(range)) yield key as Key;
}

/**
 * The keys under `prefix` in ascending pages of at most `size`, each read from a fresh snapshot and resuming
 * after the last key of the page before: a scan of a large owner holds no read transaction open across
 * pages and no more than a page in memory. Writes that commit between pages may or may not be seen.
 */
export async function* keyPages(db: Database<unknown, Key> | Database<true, Key>, prefix: Key, size: number): AsyncGenerator<Key[]> {
  // A key that extends the last one read sorts right after it: the next page starts past it.
  let start: Key = prefix;
  for (;;) {
    const page = [...db.getKeys({ start, end: [...prefix, KEY_MAX], limit: size })] as Key[];
    if (page.length > 0) yield page;
    if (page.length < size) return;
    start = [...page.at(-1)!, ''];
  }
}

/** Whether any key lies under `prefix`. */
export function hasKeyUnder(db: Database<unknown, Key> | Database<true, Key>, prefix: Key): boolean {
  for (const _ of db.getKeys({ start: prefix, end: [...prefix, KEY_MAX], limit: 1 })) return true;
  return false;
}
