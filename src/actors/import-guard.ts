import type { Clock } from '../clock.js';
import type { Scope } from '../domain/scope.js';
import { conflict } from '../errors.js';
import type { OwnerHolds } from '../store/owner-holds.js';
import { purgeOwner, type PurgeDeps } from './purge-owner.js';

/**
 * What an import asks of the node around its writes. The import calls `begin` before it reads or writes
 * anything, then exactly one of `release` or `rollBack`.
 */
export interface ImportGuard {
  /** Claims the scope for an import. Throws 409 `conflict` when something else holds it. */
  begin(scope: Scope): Promise<void>;
  /** The import is over and everything it wrote is durable (or it wrote nothing): the claim ends. */
  release(scope: Scope): Promise<void>;
  /** The import failed: everything of the scope is removed, then the claim ends. */
  rollBack(scope: Scope): Promise<void>;
}

/**
 * Imports behind an owner hold (src/store/owner-holds.ts, kind `importing`), committed before the first
 * record: until the import ends, the owner reads as one that never existed and refuses every other write
 * (409), while the import writes through the one actor its hold lets through (`ActorRegistry.importerFor`).
 * A failed import is purged like an erased owner (bounded transactions, its data key destroyed), so the
 * scope is left empty; an import cut short by a crash leaves its hold in LMDB, and `recover` purges it at
 * the next start.
 */
export class HoldImportGuard implements ImportGuard {
  constructor(private readonly deps: { holds: OwnerHolds; clock: Clock; purge: PurgeDeps }) {}

  async begin(scope: Scope): Promise<void> {
    const { holds, clock } = this.deps;
    await holds.write(() => {
      const hold = holds.holdOf(scope);
      if (hold?.kind === 'erasing') throw conflict('this owner (entity_id) is being erased; import into it once the erasure is complete');
      if (hold) throw conflict('an import into this owner (entity_id) is already running');
      holds.putHold(scope, { kind: 'importing', receipt_id: null, since: clock.now() });
    });
  }

  release(scope: Scope): Promise<void> {
    return this.deps.holds.release(scope);
  }

  async rollBack(scope: Scope): Promise<void> {
    await purgeOwner(scope, this.deps.purge, {});
    await this.release(scope);
  }

  /** Purges the imports a previous process left under way (their holds are still in LMDB); how many. */
  async recover(): Promise<number> {
    const cut = [...this.deps.holds.all()].filter(({ hold }) => hold.kind === 'importing');
    for (const { scope } of cut) await this.rollBack(scope);
    return cut.length;
  }
}
