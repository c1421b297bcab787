import { LRUCache } from 'lru-cache';
import type { Scope } from '../domain/scope.js';
import { OwnerActor, type OwnerActorDeps } from './owner-actor.js';

export interface RegistryOptions {
  /** Most actors kept in memory; the least recently used idle one goes first. */
  maxActors: number;
  /** An actor unused this long is dropped (it is rebuilt from LMDB on next use). */
  idleMs: number;
}

/**
 * Scope → actor, created on first use. An actor evicted while it still has commands in flight moves to
 * `draining` and is handed out again until it is idle, so one owner never has two writers at once.
 */
export class ActorRegistry {
  private readonly draining = new Map<string, OwnerActor>();
  private readonly cache: LRUCache<string, OwnerActor>;

  constructor(
    private readonly deps: OwnerActorDeps,
    options: RegistryOptions,
  ) {
    this.cache = new LRUCache<string, OwnerActor>({
      max: options.maxActors,
      ttl: options.idleMs,
      updateAgeOnGet: true,
      ttlAutopurge: true,
      dispose: (actor, key) => {
        if (actor.busy) this.draining.set(key, actor);
      },
    });
  }

  get size(): number {
    return this.cache.size;
  }

  actorFor(scope: Scope): OwnerActor {
    const key = JSON.stringify([scope.tenant, scope.partition, scope.entityId]);
    let actor = this.cache.get(key);
    if (actor) return actor;
    actor = this.draining.get(key);
    if (actor) this.draining.delete(key);
    actor ??= new OwnerActor(scope, this.deps);
    this.cache.set(key, actor);
    this.sweepDraining();
    return actor;
  }

  private sweepDraining(): void {
    for (const [key, actor] of this.draining) if (!actor.busy) this.draining.delete(key);
  }
}
