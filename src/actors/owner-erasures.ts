import type { Clock } from '../clock.js';
import type { Scope } from '../domain/scope.js';
import { conflict, notFound } from '../errors.js';
import { mintId } from '../ids.js';
import type { ErasureRef } from '../jobs/contract.js';
import { NO_COUNTS, receiptScope, type ErasureCounts, type ErasureReceipt, type OwnerHolds } from '../store/owner-holds.js';
import { purgeOwner, type PurgeDeps, type PurgeOptions } from './purge-owner.js';

export interface OwnerErasuresDeps {
  holds: OwnerHolds;
  clock: Clock;
  purge: PurgeDeps;
  /** Transaction sizes of the purge (ERASE_DOCS_PER_TRANSACTION, ERASE_KEYS_PER_TRANSACTION). */
  batches?: Pick<PurgeOptions, 'docsPerTransaction' | 'keysPerTransaction'>;
  /** Starts (or joins) the erasure's workflow, now or once the job engine can; never throws. */
  start(erasure: ErasureRef & { partition: string | null }): void;
}

/**
 * Erasing owners (DECISIONS.md, Forgetting, erasure, export). `request` commits the tombstone (the owner's
 * hold and its receipt) before it returns, so the owner is invisible and refuses writes from then on,
 * whether or not the job engine is up; the `eraseOwner` workflow then runs the steps below, each reading
 * the owner from the tombstone. Receipts are tenant-scoped; a complete one names no owner.
 */
export class OwnerErasures {
  constructor(private readonly deps: OwnerErasuresDeps) {}

  /**
   * Holds the owner for erasure and returns its receipt; a request while an erasure of the owner is under
   * way returns that one (a failed one is tried again). 409 while the owner is being imported.
   */
  async request(scope: Scope): Promise<ErasureReceipt> {
    const { holds, clock } = this.deps;
    const receipt = await holds.write(() => {
      const hold = holds.holdOf(scope);
      if (hold?.kind === 'importing') throw conflict('this owner (entity_id) is being imported; erase it once the import is complete');
      const under = hold?.receipt_id ? holds.receipt(scope.tenant, hold.receipt_id) : undefined;
      if (under && under.state !== 'failed') return under;
      const now = clock.now();
      const next: ErasureReceipt = under
        ? { ...under, state: 'pending', finished_at: null }
        : { receipt_id: mintId('era'), tenant: scope.tenant, partition: scope.partition, entity_id: scope.entityId, state: 'pending', counts: { ...NO_COUNTS }, started_at: now, finished_at: null };
      holds.putHold(scope, { kind: 'erasing', receipt_id: next.receipt_id, since: now });
      holds.putReceipt(next);
      return next;
    });
    this.deps.start({ tenant: receipt.tenant, partition: receipt.partition, receipt_id: receipt.receipt_id });
    return receipt;
  }

  receipt(tenant: string, receiptId: string): ErasureReceipt | undefined {
    return this.deps.holds.receipt(tenant, receiptId);
  }

  /** The erasures under way on this node (pending or running), to (re)start when the job engine is ready. */
  *open(): Generator<ErasureRef & { partition: string | null }> {
    for (const { scope, hold } of this.deps.holds.all()) {
      if (hold.kind !== 'erasing' || !hold.receipt_id) continue;
      const receipt = this.deps.holds.receipt(scope.tenant, hold.receipt_id);
      if (receipt && (receipt.state === 'pending' || receipt.state === 'running')) yield { tenant: receipt.tenant, partition: receipt.partition, receipt_id: receipt.receipt_id };
    }
  }

  /**
   * Runs an erasure in this process, for a node without the job engine (TEMPORAL_ENABLED=false): such a
   * node runs no workflows, so the owner has no runs to delete. Each step commits as in the workflow; an
   * erasure cut short by a crash is found by `open()` at the next start and resumed where it stopped. A step
   * that fails marks the receipt failed (the owner stays held; a new request tries again).
   */
  async runHere(ref: ErasureRef): Promise<void> {
    try {
      if (!(await this.begin(ref))) return;
      await this.purge(ref, {});
      await this.complete(ref);
    } catch (error) {
      await this.fail(ref).catch(() => undefined);
      throw error;
    }
  }

  // --- the workflow's steps (activities/erase-owner.ts) ---

  /** Marks the receipt running; false when it is already complete. */
  async begin(ref: ErasureRef): Promise<boolean> {
    return this.update(ref, (r) => (r.state === 'complete' ? null : { ...r, state: 'running' })).then((r) => r.state !== 'complete');
  }

  /** The owner a receipt under way erases, read from its tombstone. */
  scopeOf(ref: ErasureRef): Scope {
    const scope = receiptScope(this.receiptOrThrow(ref));
    if (!scope) throw notFound(`erasure ${ref.receipt_id} is complete; it names no owner`);
    return scope;
  }

  /** Deletes the owner's records for up to `maxMs`; the counts commit with each transaction's deletes. */
  async purge(ref: ErasureRef, options: Pick<PurgeOptions, 'maxMs' | 'heartbeat'>): Promise<{ finished: boolean }> {
    const { holds } = this.deps;
    const { removed, finished } = await purgeOwner(this.scopeOf(ref), this.deps.purge, {
      ...this.deps.batches,
      ...options,
      onBatch: (counted) => holds.putReceipt(addCounts(this.receiptOrThrow(ref), counted)),
    });
    if (finished && removed.vector_files > 0) await this.count(ref, { vector_files: removed.vector_files });
    return { finished };
  }

  /** Adds to the receipt's counts in a transaction of its own. */
  async count(ref: ErasureRef, counts: Partial<ErasureCounts>): Promise<void> {
    await this.update(ref, (r) => addCounts(r, counts));
  }

  /** Completes the receipt (without the owner's id) and releases the owner, in one transaction. */
  async complete(ref: ErasureRef): Promise<void> {
    const { holds, clock } = this.deps;
    await holds.write(() => {
      const receipt = this.receiptOrThrow(ref);
      const scope = receiptScope(receipt);
      if (!scope) return;
      const { entity_id: _, ...anonymous } = receipt;
      holds.putReceipt({ ...anonymous, state: 'complete', finished_at: clock.now() });
      if (holds.holdOf(scope)?.receipt_id === ref.receipt_id) holds.removeHold(scope);
    });
  }

  /** Marks the receipt failed; the hold stays, so the owner stays invisible until a new request. */
  async fail(ref: ErasureRef): Promise<void> {
    await this.update(ref, (r) => (r.state === 'complete' ? null : { ...r, state: 'failed', finished_at: this.deps.clock.now() }));
  }

  /** Changes the receipt in a transaction (`change` returns null to leave it); returns it as it then is. */
  private update(ref: ErasureRef, change: (receipt: ErasureReceipt) => ErasureReceipt | null): Promise<ErasureReceipt> {
    return this.deps.holds.store.transaction(() => {
      const receipt = this.receiptOrThrow(ref);
      const next = change(receipt);
      if (next) this.deps.holds.putReceipt(next);
      return next ?? receipt;
    });
  }

  private receiptOrThrow(ref: ErasureRef): ErasureReceipt {
    const receipt = this.deps.holds.receipt(ref.tenant, ref.receipt_id);
    if (!receipt) throw notFound(`erasure ${ref.receipt_id}`);
    return receipt;
  }
}

function addCounts(receipt: ErasureReceipt, counts: Partial<ErasureCounts>): ErasureReceipt {
  const sum = { ...receipt.counts };
  for (const [kind, n] of Object.entries(counts) as Array<[keyof ErasureCounts, number]>) sum[kind] = (sum[kind] ?? 0) + n;
  return { ...receipt, counts: sum };
}
