import type { Key } from '../../store/lmdb.js';
import { nextDocNoKey, tenantStateKey, type IndexDb } from './layout.js';

/**
 * Whether a tenant's field indexes are kept. Ingest pays for indexes only once something reads them:
 *
 * - `dormant`: no query has run and no field was declared; the write hook does nothing.
 * - `building`: the first query or declaration woke the tenant; writes are indexed as they come, and a
 *   walk over the documents stored while dormant (resumable from `cursor`) indexes the rest.
 * - `awake`: every document is indexed, for good.
 *
 * A tenant from before this state existed has document numbers (`[t, 'n']`) and no state: it was
 * indexed at every write, so it is awake.
 */
export type TenantIndexState = { state: 'dormant' } | { state: 'building'; cursor: Key | null; indexed: number } | { state: 'awake' };

const DORMANT: TenantIndexState = { state: 'dormant' };
const AWAKE: TenantIndexState = { state: 'awake' };

export class TenantStates {
  /**
   * Each tenant's kind of state, remembered after its first read so the write hook reads nothing. Only
   * this process moves a tenant forward (dormant → building → awake), and `put` moves the memory with
   * the record, so the memory is never behind the database.
   */
  private readonly kinds = new Map<string, TenantIndexState['state']>();

  constructor(private readonly db: IndexDb) {}

  /** The state with its progress, as stored. */
  get(t: string): TenantIndexState {
    const stored = this.db.meta.get(tenantStateKey(t)) as TenantIndexState | undefined;
    return stored ?? (this.db.meta.get(nextDocNoKey(t)) === undefined ? DORMANT : AWAKE);
  }

  kind(t: string): TenantIndexState['state'] {
    let kind = this.kinds.get(t);
    if (kind === undefined) this.kinds.set(t, (kind = this.get(t).state));
    return kind;
  }

  /** Inside a transaction. */
  put(t: string, state: Exclude<TenantIndexState, { state: 'dormant' }>): void {
    this.db.meta.put(tenantStateKey(t), state);
    this.kinds.set(t, state.state);
  }

  /** A transaction that `put` a state failed to commit: the memory is read again from what LMDB holds. */
  forget(t: string): void {
    this.kinds.delete(t);
  }
}
