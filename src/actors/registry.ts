import { LRUCache } from 'lru-cache';
import type { Scope } from '../domain/scope.js';
import { OwnerActor, type OwnerActorDeps } from './owner-actor.js';

export interface RegistryOptions {
  /** Most actors kept in memory; the least recently used idle one goes first. */
  maxActors: number;
  /** An actor unused this long is dropped (it is rebuilt from LMDB on next use). */
  idleMs: number;
  /**
   * Most facts held in memory across all actors (each actor keeps its owner's fact index); least
   * recently used idle actors go first. One owner larger than this is still served, alone.
   */
  maxCachedFacts?: number;
}

/**
 * Scope → actor, created on first use. An actor evicted while it still has commands in flight moves to
 * `draining` and is handed out again until it is idle, so one owner never has two writers at once.
 */
export class ActorRegistry {
  private readonly draining = new Map<string, OwnerActor>();
  private readonly cache: LRUCache<string, OwnerActor>;
  /** The weight each cached actor was last charged with; re-charged when it has drifted. */
  private readonly charged = new WeakMap<OwnerActor, number>();

  constructor(
    private readonly deps: OwnerActorDeps,
    options: RegistryOptions,
  ) {
    const maxSize = options.maxCachedFacts;
    this.cache = new LRUCache<string, OwnerActor>({
      max: options.maxActors,
      ...(maxSize === undefined
        ? {}
        : { maxSize, sizeCalculation: (actor: OwnerActor) => Math.min(maxSize, 1 + this.charge(actor)) }),
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
    if (actor) {
      if (this.drifted(actor)) this.cache.set(key, actor);
      return actor;
    }
    actor = this.draining.get(key);
    if (actor) this.draining.delete(key);
    actor ??= new OwnerActor(scope, this.deps);
    this.cache.set(key, actor);
    this.sweepDraining();
    return actor;
  }

  private charge(actor: OwnerActor): number {
    this.charged.set(actor, actor.weight);
    return actor.weight;
  }

  /** Re-sizing on every call would cost a cache write per request; facts arrive one at a time. */
  private drifted(actor: OwnerActor): boolean {
    const charged = this.charged.get(actor) ?? 0;
    return Math.abs(actor.weight - charged) > Math.max(64, charged / 8);
  }

  private sweepDraining(): void {
    for (const [key, actor] of this.draining) if (!actor.busy) this.draining.delete(key);
  }
}
