import { Context, log } from '@temporalio/activity';
import { AppError } from '../src/errors.js';
import { placementOf, scopeOf, type OwnerRef, type ReembedOwnerActivities } from '../src/jobs/contract.js';
import { withAppFailures } from './failures.js';
import type { ActivityPorts, ReembedPort } from './ports.js';

/**
 * Activities of the `reembedOwner` workflow. Each step goes through the owner's actor; a slice rewrites
 * pages (each committed with the owner's cursor) for up to `maxMs`, heartbeating after every embedding
 * batch, so a retry after a crash simply goes on from the committed cursor.
 */
export function createReembedOwnerActivities({ owners, reembed, placement }: Pick<ActivityPorts, 'owners' | 'reembed' | 'placement'>): ReembedOwnerActivities {
  const steps = (owner: OwnerRef, embedder: string) => {
    refuseUnless(reembed, embedder);
    placement.assertHosted(placementOf(owner));
    return owners.actorFor(scopeOf(owner)).reembedding;
  };
  return {
    planReembed: (owner, embedder) => withAppFailures(() => steps(owner, embedder).plan()),

    reembedSlice: (owner, embedder, pageSize, maxMs) =>
      withAppFailures(async () => {
        const ctx = Context.current();
        const started = Date.now();
        for (;;) {
          if (ctx.cancellationSignal.aborted) throw ctx.cancellationSignal.reason;
          // The actor is looked up per page: it may have been evicted and made again in between.
          const page = await steps(owner, embedder).page(pageSize, () => ctx.heartbeat());
          ctx.heartbeat(page.done);
          if (page.finished || Date.now() - started >= maxMs) return page;
        }
      }),

    finishReembed: (owner, embedder) =>
      withAppFailures(async () => {
        const foreign = await steps(owner, embedder).finish();
        log.info('owner re-embedded', { embedder, foreign });
        return { foreign };
      }),
  };
}

/**
 * A node re-embeds only with the embedder the job names, and only when that embedder is really the one it
 * was configured with: a node on the hashing fallback would turn the model's vectors into hash vectors.
 * Neither can change by retrying on this node, so neither is retried.
 */
export function refuseUnless(reembed: ReembedPort, embedder: string | null): void {
  if (reembed.refusal !== null) throw new AppError('unavailable', reembed.refusal, { retryable: false });
  if (embedder !== null && embedder !== reembed.embedderId) {
    throw new AppError('unavailable', `this job re-embeds with ${embedder}, and this node embeds with ${reembed.embedderId}`, { retryable: false });
  }
}
