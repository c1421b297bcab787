import type { Database } from 'lmdb';
import type { Scope } from '../domain/scope.js';
import { conflict, type AppError } from '../errors.js';
import { KEY_MAX, type Key, type Store } from './lmdb.js';

/**
 * Why an owner is held: its erasure is under way, or an import is loading it. Either way the owner reads
 * as one that does not exist and refuses writes (409) until the hold is released.
 */
export type HoldKind = 'erasing' | 'importing';

export interface OwnerHold {
  kind: HoldKind;
  /** The erasure's receipt (null for an import). */
  receipt_id: string | null;
  /** Epoch ms the hold was placed. */
  since: number;
}

export const ERASURE_STATES = ['pending', 'running', 'complete', 'failed'] as const;
export type ErasureState = (typeof ERASURE_STATES)[number];

/** What an erasure removed, by kind of record: counts only, never content. */
export interface ErasureCounts {
  documents: number;
  pending_media: number;
  passages: number;
  entities: number;
  relationships: number;
  facts: number;
  /** Every other LMDB key under the owner's scope (index entries, cursors, counters). */
  other_keys: number;
  vector_files: number;
  workflow_runs: number;
}

export const NO_COUNTS: ErasureCounts = {
  documents: 0,
  pending_media: 0,
  passages: 0,
  entities: 0,
  relationships: 0,
  facts: 0,
  other_keys: 0,
  vector_files: 0,
  workflow_runs: 0,
};

/**
 * An erasure's receipt. While the erasure is under way it is also the tombstone: `entity_id` says whose
 * scope the workflow erases (the workflow carries the receipt id only). Once complete, it keeps no owner id.
 */
export interface ErasureReceipt {
  receipt_id: string;
  tenant: string;
  partition: string | null;
  /** The owner being erased; absent once the erasure is complete. */
  entity_id?: string;
  state: ErasureState;
  counts: ErasureCounts;
  started_at: number;
  finished_at: number | null;
}

/**
 * Owner holds and erasure receipts, in a database of their own (`owner_holds`), outside every owner's
 * scope, so erasing the scope leaves them:
 *   ['h', tenant, partition ?? '', entity_id] → OwnerHold      (exists only while the owner is held)
 *   ['r', tenant, receipt_id]                 → ErasureReceipt
 * Writers run inside `write`; readers see the latest committed snapshot, so a hold is in force for every
 * request from the moment its transaction commits.
 *
 * Every write request asks twice whether its owner is held (src/http/scope.ts, then the actor registry),
 * and almost never is one: a node holds owners only while it erases or imports them. So `holdOf` reads
 * LMDB (~0.8 µs each, a key encoded and a miss) only while a hold may exist: from the moment a `write`
 * that may place one starts, until one that has settled finds no hold committed and no other `write`
 * still under way. The flag is raised before anything is put and lowered only from committed state, so
 * it is never down while a hold is, or is about to be, in force.
 */
export class OwnerHolds {
  private readonly db: Database<unknown, Key>;
  /** Whether a hold may be in force: when false, none is (see the class comment). */
  private mayHold: boolean;
  /** How many `write` transactions are under way (not yet committed or failed). */
  private writing = 0;

  constructor(readonly store: Store) {
    this.db = store.env.openDB<unknown, Key>({ name: 'owner_holds' });
    this.mayHold = this.anyHeld();
  }

  holdOf(scope: Scope): OwnerHold | undefined {
    if (!this.mayHold) return undefined;
    return this.db.get(holdKey(scope)) as OwnerHold | undefined;
  }

  /**
   * Runs `change` in a transaction that may place or remove holds (and write receipts): `putHold` and
   * `removeHold` are called only inside one. Resolves once it has committed, as `Store.transaction`.
   */
  write<T>(change: () => T): Promise<T> {
    this.writing++;
    this.mayHold = true;
    const committed = this.store.transaction(change);
    const settled = (): void => {
      this.writing--;
      if (this.writing === 0 && !this.anyHeld()) this.mayHold = false;
    };
    committed.then(settled, settled);
    return committed;
  }

  /** The owners of a tenant held now (a few at most: erasures and imports under way). */
  heldIn(tenant: string): Array<{ partition: string | null; entityId: string }> {
    const out: Array<{ partition: string | null; entityId: string }> = [];
    for (const key of this.db.getKeys({ start: ['h', tenant], end: ['h', tenant, KEY_MAX] })) {
      const [, , partition, entityId] = key as Key;
      out.push({ partition: partition === '' ? null : String(partition), entityId: String(entityId) });
    }
    return out;
  }

  /** Every hold of the node, with its owner (restarting the erasures under way). */
  *all(): Generator<{ scope: Scope; hold: OwnerHold }> {
    for (const { key, value } of this.db.getRange({ start: ['h'], end: ['h', KEY_MAX] })) {
      const [, tenant, partition, entityId] = key as Key;
      yield { scope: { tenant: String(tenant), partition: partition === '' ? null : String(partition), entityId: String(entityId) }, hold: value as OwnerHold };
    }
  }

  /** Inside `write`. */
  putHold(scope: Scope, hold: OwnerHold): void {
    this.assertWriting('putHold');
    this.db.put(holdKey(scope), hold);
  }

  /** Inside `write`. */
  removeHold(scope: Scope): void {
    this.assertWriting('removeHold');
    this.db.remove(holdKey(scope));
  }

  receipt(tenant: string, receiptId: string): ErasureReceipt | undefined {
    return this.db.get(['r', tenant, receiptId]) as ErasureReceipt | undefined;
  }

  /** Inside a transaction. */
  putReceipt(receipt: ErasureReceipt): void {
    this.db.put(['r', receipt.tenant, receipt.receipt_id], receipt);
  }

  /** Places a hold in a transaction of its own (an import's, say); committed when this resolves. */
  place(scope: Scope, hold: OwnerHold): Promise<void> {
    return this.write(() => this.putHold(scope, hold));
  }

  /** Releases a hold in a transaction of its own. */
  release(scope: Scope): Promise<void> {
    return this.write(() => this.removeHold(scope));
  }

  /** Whether any hold is committed (the snapshot readers see). */
  private anyHeld(): boolean {
    for (const _ of this.db.getKeys({ start: ['h'], end: ['h', KEY_MAX], limit: 1 })) return true;
    return false;
  }

  /** A hold put outside `write` could commit while `holdOf` answers without reading: refused loudly. */
  private assertWriting(what: string): void {
    if (this.writing === 0) throw new Error(`OwnerHolds.${what} runs only inside OwnerHolds.write`);
  }
}

/** The owner of a receipt still under way (its tombstone), as a scope. */
export function receiptScope(receipt: ErasureReceipt): Scope | null {
  return receipt.entity_id === undefined ? null : { tenant: receipt.tenant, partition: receipt.partition, entityId: receipt.entity_id };
}

/** The 409 a write to a held owner answers: the HTTP scope check and the actor registry refuse with the same words. */
export function heldWriteConflict(hold: OwnerHold): AppError {
  return conflict(`this owner (entity_id) is being ${hold.kind === 'erasing' ? 'erased' : 'imported'}; writes are refused until that is complete`);
}

const holdKey = (scope: Scope): Key => ['h', scope.tenant, scope.partition ?? '', scope.entityId];
