import { createHash } from 'node:crypto';
import type { Database } from 'lmdb';
import type { Scope } from '../domain/scope.js';
import { KEY_MAX, scopeKey, type Key, type Store } from './lmdb.js';

/** The first answer to an `Idempotency-Key`, as it is replayed. */
export interface KeptResponse {
  /** SHA-256 (hex) of what the request was: method, path, query and body (src/http/idempotency.ts). */
  fingerprint: string;
  status: number;
  /** The headers the route set (Content-Type, Location, ...), in the order it set them. */
  headers: Array<[string, string]>;
  body: Buffer;
}

/** Who a key belongs to: keys of two principals, or of two tenants, never meet. */
export interface KeyHolder {
  tenant: string;
  principal: string;
}

/** The owner record's value: the expiry in clear (the purge and the sweep read it), the response sealed. */
interface StoredKept {
  expires_at: number;
  response: Uint8Array | KeptResponse;
}

/** The lookup entry of a key: where its response lies, and until when. */
type Lookup = [partition: string, entity: string, expiresAt: number];

/** Entries that are not an owner's sort before every owner's `[tenant, ...]`: numbers before strings. */
const BY_KEY = 0;
const BY_EXPIRY = 1;
/** Expired keys removed by each new one: the sweep keeps pace with writes, and a write pays a bounded cost. */
const SWEEP_PER_KEEP = 16;

/**
 * The responses kept for `Idempotency-Key` (DECISIONS.md, Writes that may be retried), in the LMDB database
 * `idempotency`. Three kinds of entries:
 *
 * - `[tenant, partition, entity, principal, sha256(key)] → { expires_at, response }`: the response under its
 *   owner's scope, sealed under the owner's data key like the owner's content (src/store/sealed.ts; in clear
 *   when CONTENT_ENCRYPTION=off). Destroying the key makes it unreadable; the owner's purge removes it
 *   with the owner's other keys (src/actors/purge-owner.ts, `removeKept`).
 * - `[0, tenant, principal, sha256(key)] → [partition, entity, expires_at]`: how a repeat finds it, whatever
 *   owner it names (the same key for another owner is a conflict, so the lookup cannot start from the owner).
 * - `[1, expires_at, tenant, principal, sha256(key)] → true`: the expiry order the sweep walks.
 *
 * The key itself is stored nowhere, only its SHA-256. Which keys are being answered right now (a repeat
 * meanwhile is refused) is held in memory: the service is the only process of its DATA_DIR (pid-file.ts).
 */
export class IdempotencyRecords {
  private readonly db: Database<unknown, Key>;
  private readonly running = new Set<string>();

  constructor(private readonly store: Store) {
    this.db = store.idempotency;
  }

  /** Whether a request with the key is being answered now (between `claim` and `release`). */
  isRunning(holder: KeyHolder, key: string): boolean {
    return this.running.has(runningId(holder, key));
  }

  claim(holder: KeyHolder, key: string): void {
    this.running.add(runningId(holder, key));
  }

  release(holder: KeyHolder, key: string): void {
    this.running.delete(runningId(holder, key));
  }

  /**
   * The response kept for the key and the owner it belongs to; nothing when there is none, when it has
   * expired, when its owner was purged, or when its owner's data key is destroyed (the owner was erased).
   */
  find(holder: KeyHolder, key: string, now: number): { owner: Scope; response: KeptResponse } | undefined {
    const lookup = this.db.get(lookupKey(holder, key)) as Lookup | undefined;
    if (!lookup || lookup[2] <= now) return undefined;
    const ownerKey = keptKey(holder, key, lookup);
    const stored = this.db.get(ownerKey) as StoredKept | undefined;
    if (!stored) return undefined;
    const owner: Scope = { tenant: holder.tenant, partition: lookup[0] === '' ? null : lookup[0], entityId: lookup[1] };
    const response = this.store.content.openOwned(ownerKey, stored.response) as KeptResponse | undefined;
    return response ? { owner, response } : undefined;
  }

  /**
   * Keeps the response for 24 hours (`expiresAt`), durably: the promise settles after the commit. An
   * expired predecessor of the key goes, and so do up to SWEEP_PER_KEEP other expired keys.
   */
  keep(holder: KeyHolder, key: string, owner: Scope, response: KeptResponse, now: number, expiresAt: number): Promise<void> {
    return this.store.transaction(this.keeper(holder, key, owner, response, now, expiresAt));
  }

  /**
   * What `keep` does inside its transaction, for a caller to run inside its own: a write's transaction, so
   * the write and its kept answer commit together or not at all. The answer is sealed now, by the caller.
   */
  keeper(holder: KeyHolder, key: string, owner: Scope, response: KeptResponse, now: number, expiresAt: number): () => void {
    const s = scopeKey(owner);
    const lookup: Lookup = [String(s[1]), String(s[2]), expiresAt];
    const ownerKey = keptKey(holder, key, lookup);
    const sealed: StoredKept = { expires_at: expiresAt, response: this.store.content.sealOwned(ownerKey, response) as StoredKept['response'] };
    return () => {
      const previous = this.db.get(lookupKey(holder, key)) as Lookup | undefined;
      if (previous) removeKept(this.db, keptKey(holder, key, previous));
      this.db.put(ownerKey, sealed);
      this.db.put(lookupKey(holder, key), lookup);
      this.db.put([BY_EXPIRY, expiresAt, holder.tenant, holder.principal, digest(key)], true);
      this.sweepIn(now, SWEEP_PER_KEEP);
    };
  }

  /** Removes up to `limit` keys expired by `now`; how many. */
  sweep(now: number, limit: number): Promise<number> {
    return this.store.transaction(() => this.sweepIn(now, limit));
  }

  private sweepIn(now: number, limit: number): number {
    let removed = 0;
    const expired = [...this.db.getKeys({ start: [BY_EXPIRY], end: [BY_EXPIRY, now, KEY_MAX], limit })];
    for (const key of expired) {
      const [, expiresAt, tenant, principal, hash] = key as [number, number, string, string, string];
      const at = [BY_KEY, tenant, principal, hash];
      const lookup = this.db.get(at) as Lookup | undefined;
      // A lookup with another expiry belongs to a newer use of the key, which keeps its own entries.
      if (lookup && lookup[2] === expiresAt) removeKept(this.db, [tenant, lookup[0], lookup[1], principal, hash]);
      this.db.remove(key);
      removed++;
    }
    return removed;
  }

}

/**
 * Removes an owner's kept response (`[tenant, partition, entity, principal, hash]`) with its lookup and
 * expiry entries, inside the caller's transaction; 1 when there was one, else 0.
 */
export function removeKept(db: Database<unknown, Key>, ownerKey: Key): number {
  const stored = db.get(ownerKey) as StoredKept | undefined;
  const [tenant, partition, entity, principal, hash] = ownerKey as [string, string, string, string, string];
  const at = [BY_KEY, tenant, principal, hash];
  const lookup = db.get(at) as Lookup | undefined;
  if (lookup && lookup[0] === partition && lookup[1] === entity) {
    db.remove(at);
    db.remove([BY_EXPIRY, lookup[2], tenant, principal, hash]);
  }
  if (!stored) return 0;
  db.remove(ownerKey);
  return 1;
}

function digest(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

function lookupKey(holder: KeyHolder, key: string): Key {
  return [BY_KEY, holder.tenant, holder.principal, digest(key)];
}

function keptKey(holder: KeyHolder, key: string, lookup: Lookup): Key {
  return [holder.tenant, lookup[0], lookup[1], holder.principal, digest(key)];
}

function runningId(holder: KeyHolder, key: string): string {
  return JSON.stringify([holder.tenant, holder.principal, key]);
}
