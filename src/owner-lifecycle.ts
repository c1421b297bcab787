import { HoldImportGuard } from './actors/import-guard.js';
import { OwnerErasures } from './actors/owner-erasures.js';
import { purgeOwner, type PurgeDeps } from './actors/purge-owner.js';
import type { Clock } from './clock.js';
import type { Config } from './config.js';
import type { Scope } from './domain/scope.js';
import type { Logger } from './log.js';
import type { OwnerHolds } from './store/owner-holds.js';
import type { ErasureStart } from './temporal/erasures.js';
import type { Jobs } from './temporal/jobs.js';

export interface OwnerLifecycle {
  erasures: OwnerErasures;
  importGuard: HoldImportGuard;
  /** Goes on with what a previous process left under way: erasures (once the jobs exist), and imports cut short (purged). */
  resume(): void;
  /**
   * Removes every record of an owner from this node, as an erasure's purge does, without a receipt or a
   * workflow: the copy a node keeps of a scope it handed over (docs/scale-out.md). Nothing may write to it.
   */
  purgeCopy(scope: Scope): Promise<void>;
}

/**
 * The end of an owner's life on a node, wired: erasures (the `eraseOwner` workflow, or the same steps in
 * process on a node without Temporal, which has no workflow runs of the owner to delete) and imports behind
 * their holds. Both purge an owner the same way, and end by destroying its data key, so every copy of its
 * records left in freed pages is ciphertext no key opens.
 */
export function composeOwnerLifecycle(
  config: Config,
  deps: { holds: OwnerHolds; clock: Clock; log: Logger; purge: Omit<PurgeDeps, 'finalSteps'> },
  jobs: () => Jobs | undefined,
): OwnerLifecycle {
  const { holds, clock, log } = deps;
  const purge: PurgeDeps = { ...deps.purge, finalSteps: [(scope: Scope) => deps.purge.store.keys.destroy(scope)] };
  const start = (erasure: ErasureStart): void => {
    if (config.temporal.enabled) jobs()?.requestErasure(erasure);
    else erasures.runHere(erasure).catch((err: unknown) => log.error({ err, receipt_id: erasure.receipt_id }, 'erasure failed; a new DELETE tries again'));
  };
  const batches = { docsPerTransaction: config.erase.docsPerTransaction, keysPerTransaction: config.erase.keysPerTransaction };
  const erasures = new OwnerErasures({ holds, clock, purge, batches, start });
  const importGuard = new HoldImportGuard({ holds, clock, purge });
  return {
    erasures,
    importGuard,
    purgeCopy: async (scope) => void (await purgeOwner(scope, purge, batches)),
    resume() {
      for (const erasure of erasures.open()) start(erasure);
      importGuard.recover().then(
        (n) => n > 0 && log.warn({ imports: n }, 'imports cut short by the last stop were rolled back'),
        (err: unknown) => log.error({ err }, 'rolling back imports cut short failed; their owners stay held'),
      );
    },
  };
}
