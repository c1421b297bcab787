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
 * Writers run inside `Store.transaction`; readers see the latest committed snapshot, so a hold is in force
 * for every request from the moment its transaction commits.
 */
export class OwnerHolds {
  private readonly db: Database<unknown, Key>;

  constructor(readonly store: Store) {
    this.db = store.env.openDB<unknown, Key>({ name: 'owner_holds' });
  }

  holdOf(scope: Scope): OwnerHold | undefined {
    return this.db.get(holdKey(scope)) as OwnerHold | undefined;
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

  /** Inside a transaction. */
  putHold(scope: Scope, hold: OwnerHold): void {
    this.db.put(holdKey(scope), hold);
  }

  /** Inside a transaction. */
  removeHold(scope: Scope): void {
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
    return this.store.transaction(() => this.putHold(scope, hold));
  }

  /** Releases a hold in a transaction of its own. */
  release(scope: Scope): Promise<void> {
    return this.store.transaction(() => this.removeHold(scope));
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
