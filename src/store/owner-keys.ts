import { randomBytes } from 'node:crypto';
import { closeSync, constants, fdatasync, fdatasyncSync, openSync, readSync, write, writeSync } from 'node:fs';
import { promisify } from 'node:util';
import { join } from 'node:path';
import type { Database, RootDatabase } from 'lmdb';
import { LRUCache } from 'lru-cache';
import type { Scope } from '../domain/scope.js';
import { GCM_OVERHEAD, gcmOpen, gcmSeal } from './aes-gcm.js';
import { quietCommitFailure } from './commit-failure.js';
import { closeFile, PRIVATE_FILE } from './private-files.js';
import { TenantKeys } from './tenant-keys.js';

/** One slot of `DATA_DIR/owner-keys`: version (1) | IV (12) | GCM tag (16) | wrapped key (32) | zero padding. */
export const SLOT_BYTES = 64;
const SLOT_VERSION = 1;
const KEY_BYTES = 32;
/** Unwrapped keys kept in memory (32 bytes each, plus the map's overhead). */
const CACHE_MAX = 50_000;

/** Where the allocator keeps its state: numbers first, so no entry meets an owner's `[tenant, partition, entity]`. */
const NEXT_SLOT = [0, 'next'];
const FREE = 1;

type OwnerKey = [string, string, string];

/**
 * Per-owner data keys (crypto-shredding). Each owner gets a random 32-byte key on its first sealed write;
 * its records are sealed under it (src/store/sealed.ts), so destroying the key makes every copy of those
 * records unreadable: the live ones, those LMDB left in freed pages, and those in old backups.
 *
 * A key is kept wrapped (AES-256-GCM) by its tenant's key, derived from the master key with HKDF-SHA256
 * (info = tenant, a salt of its own, so it never equals the tenant's blob key), with the owner's scope as
 * AAD. Wrapped keys live outside LMDB, in fixed slots of `DATA_DIR/owner-keys`: LMDB is copy-on-write,
 * so a removed record stays in freed pages and removing a key record would destroy nothing, whereas a
 * slot is overwritten in place. LMDB (database `owner_keys`) holds only slot numbers: `scope → slot`,
 * the next unused slot and the free slots.
 *
 * Crash safety: a slot is written (positioned write) when it is allocated, and the file is fdatasync'ed
 * before the LMDB commit that records the allocation and the first record sealed under the key (`flush`,
 * run by the store before every commit). A crash before that commit leaves a slot LMDB never allocated,
 * which a later allocation overwrites. Allocation state is mirrored in memory, so owners allocated in one
 * event turn (plain puts, before anything commits) never share a slot; the service is the only writer
 * of its DATA_DIR.
 *
 * Allocating inside a write syncs the file on the event loop, in the middle of LMDB's write transaction:
 * with many new owners that was a stall of tens of ms per commit (issue 16, bench/owners.ts). `prepare`
 * allocates before the owner's write instead, syncing in the thread pool and recording the slot in LMDB
 * only once the sync is done; the same order, so the same crash safety (a crash in between may leave one
 * unrecorded slot below the next one: 64 bytes never reused).
 */
export class OwnerKeys {
  private readonly fd: number;
  private readonly cache = new LRUCache<string, Buffer>({ max: CACHE_MAX });
  /** Allocated, not yet committed: found here until LMDB has them. */
  private readonly fresh = new Map<string, { slot: number; key: Buffer; committed: Promise<unknown> }>();
  /** Allocations whose slot is being synced by `prepare`, by owner id. */
  private readonly preparing = new Map<string, Promise<void>>();
  /** The file's sync in flight for `prepare`, and the one that follows it for slots written meanwhile. */
  private syncing: Promise<void> | null = null;
  private nextSync: Promise<void> | null = null;
  private readonly free: number[];
  private next: number;
  private dirty = false;
  private last: { scope: OwnerKey; key: Buffer } | undefined;
  private readonly tenantKeys: TenantKeys;

  constructor(
    private readonly env: RootDatabase,
    private readonly db: Database<unknown, Array<string | number>>,
    dataDir: string,
    masterKey: Buffer,
  ) {
    this.tenantKeys = new TenantKeys(masterKey, 'engram-owner-key-v1');
    const path = join(dataDir, 'owner-keys');
    // Read-write without O_APPEND, so writes land at the slot's position.
    this.fd = openSync(path, constants.O_RDWR | constants.O_CREAT, PRIVATE_FILE);
    closeFile(path);
    this.next = (db.get(NEXT_SLOT) as number | undefined) ?? 0;
    this.free = [...db.getKeys({ start: [FREE], end: [FREE + 1] })].map((k) => k[1] as number);
  }

  /** The owner's data key, allocating one (inside the current write) when it has none. */
  keyFor(scope: OwnerKey): Buffer {
    return this.existing(scope) ?? this.allocate(scope);
  }

  /**
   * Makes sure the owner has a data key before a write needs one: undefined (nothing to wait for) when it
   * has one, else a promise that settles once a new key's slot is durable and its allocation queued in
   * LMDB, so the write's commit finds nothing to sync.
   */
  prepare(scope: OwnerKey): Promise<void> | undefined {
    if (this.existing(scope)) return undefined;
    const id = ownerId(scope);
    let ready = this.preparing.get(id);
    if (!ready) {
      ready = this.allocateSynced(scope, id).finally(() => this.preparing.delete(id));
      this.preparing.set(id, ready);
    }
    return ready;
  }

  private async allocateSynced(scope: OwnerKey, id: string): Promise<void> {
    const key = randomBytes(KEY_BYTES);
    const reused = this.free.pop();
    const slot = reused ?? this.next++;
    try {
      // In the thread pool too: a write to a page the kernel is syncing waits for that sync.
      await writeAsync(this.fd, this.wrap(scope, key), 0, SLOT_BYTES, slot * SLOT_BYTES);
      await this.synced();
    } catch (error) {
      // Never recorded: the slot is free again, and the write allocates as it did before.
      this.free.push(slot);
      throw error;
    }
    // Another write of this owner allocated meanwhile (one not waiting for `prepare`): that key stands.
    if (this.existing(scope)) return void this.free.push(slot);
    this.record(scope, id, slot, key, reused !== undefined);
  }

  /**
   * Resolves once every slot written before the call is on disk: one sync at a time, and one more for
   * all the slots written while it ran (many new owners at once cost two syncs, not one each).
   */
  private synced(): Promise<void> {
    if (!this.syncing) {
      this.syncing = fdatasyncAsync(this.fd).finally(() => (this.syncing = null));
      return this.syncing;
    }
    this.nextSync ??= this.syncing
      .catch(() => undefined)
      .then(() => {
        this.nextSync = null;
        return this.synced();
      });
    return this.nextSync;
  }

  /** The owner's data key, or undefined when it has none (never written, or destroyed). */
  existing(scope: OwnerKey): Buffer | undefined {
    // Reads and writes come in runs of one owner (a load, a scan, an assertion's records): the last key
    // found is checked first, without building the owner's id.
    const last = this.last;
    if (last && last.scope[2] === scope[2] && last.scope[1] === scope[1] && last.scope[0] === scope[0]) return last.key;
    const key = this.lookup(scope);
    if (key) this.last = { scope, key };
    return key;
  }

  private lookup(scope: OwnerKey): Buffer | undefined {
    const id = ownerId(scope);
    const cached = this.cache.get(id) ?? this.fresh.get(id)?.key;
    if (cached) return cached;
    const slot = this.db.get(scope) as number | undefined;
    if (slot === undefined) return undefined;
    const key = this.unwrap(scope, this.readSlot(slot));
    if (key) this.cache.set(id, key);
    return key;
  }

  /**
   * Makes every pending slot write durable. The store calls it before each commit (lmdb-js `beforecommit`,
   * and at the end of every transaction callback, which lmdb-js runs after that event).
   */
  flush(): void {
    if (!this.dirty) return;
    fdatasyncSync(this.fd);
    this.dirty = false;
  }

  /**
   * Destroys the owner's key: its slot is overwritten with zeros and synced, then LMDB forgets the slot
   * and returns it to the free list. Idempotent; an owner without a key is left as it is. Records sealed
   * under the key can never be opened again.
   */
  async destroy(scope: Scope): Promise<void> {
    const owner: OwnerKey = [scope.tenant, scope.partition ?? '', scope.entityId];
    const id = ownerId(owner);
    await this.preparing.get(id)?.catch(() => undefined);
    await this.fresh.get(id)?.committed.catch(() => undefined);
    this.forget(id);
    const slot = this.db.get(owner) as number | undefined;
    if (slot === undefined) return;
    writeSync(this.fd, Buffer.alloc(SLOT_BYTES), 0, SLOT_BYTES, slot * SLOT_BYTES);
    fdatasyncSync(this.fd);
    await this.env.transaction(() => {
      if (this.db.get(owner) !== slot) return;
      this.db.remove(owner);
      this.db.put([FREE, slot], true);
    });
    this.forget(id);
    if (!this.free.includes(slot)) this.free.push(slot);
  }

  /** Drops an owner's key from memory. */
  private forget(id: string): void {
    this.cache.delete(id);
    if (this.last && ownerId(this.last.scope) === id) this.last = undefined;
  }

  close(): void {
    closeSync(this.fd);
  }

  private allocate(scope: OwnerKey): Buffer {
    const id = ownerId(scope);
    const key = randomBytes(KEY_BYTES);
    const reused = this.free.pop();
    const slot = reused ?? this.next++;
    writeSync(this.fd, this.wrap(scope, key), 0, SLOT_BYTES, slot * SLOT_BYTES);
    this.dirty = true;
    this.record(scope, id, slot, key, reused !== undefined);
    return key;
  }

  /** Queues the allocation's LMDB records (before the record sealed under the key, so they commit together or before it). */
  private record(scope: OwnerKey, id: string, slot: number, key: Buffer, reused: boolean): void {
    const bookkeeping = reused ? this.db.remove([FREE, slot]) : this.db.put(NEXT_SLOT, this.next);
    bookkeeping.then(undefined, quietCommitFailure);
    const committed = this.db.put(scope, slot);
    this.fresh.set(id, { slot, key, committed });
    const settle = () => {
      if (this.fresh.get(id)?.slot === slot) this.fresh.delete(id);
    };
    committed.then(
      (ok) => {
        if (ok) this.cache.set(id, key);
        settle();
      },
      (error: unknown) => {
        // Never committed: no later write may seal under this key.
        quietCommitFailure(error);
        if (this.last?.key === key) this.last = undefined;
        settle();
      },
    );
  }

  private wrap(scope: OwnerKey, key: Buffer): Buffer {
    const slot = Buffer.alloc(SLOT_BYTES);
    gcmSeal(SLOT_VERSION, this.tenantKey(scope[0]), scopeAad(scope), key).copy(slot);
    return slot;
  }

  /** The key in a slot; undefined for a zeroed (destroyed) slot. Throws when the slot was altered or is another owner's. */
  private unwrap(scope: OwnerKey, slot: Buffer): Buffer | undefined {
    if (slot[0] !== SLOT_VERSION) return undefined;
    return gcmOpen(SLOT_VERSION, this.tenantKey(scope[0]), scopeAad(scope), slot.subarray(0, GCM_OVERHEAD + KEY_BYTES), 'key slot');
  }

  /** A slot past the end of the file (its write never reached the disk) reads as zeros, like a destroyed one: no key. */
  private readSlot(slot: number): Buffer {
    const buf = Buffer.alloc(SLOT_BYTES);
    readSync(this.fd, buf, 0, SLOT_BYTES, slot * SLOT_BYTES);
    return buf;
  }

  private tenantKey(tenant: string): Buffer {
    return this.tenantKeys.get(tenant);
  }
}

const ownerId = (scope: OwnerKey): string => JSON.stringify(scope);
const fdatasyncAsync = promisify(fdatasync);
const writeAsync = promisify(write);
/** A wrapped key is bound to its owner: the scope is its additional authenticated data. */
const scopeAad = (scope: OwnerKey): Buffer => Buffer.from(ownerId(scope), 'utf8');
