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
  private readonly cache: LRUCache<string, Entry>;

  constructor(
    private readonly deps: OwnerActorDeps,
    options: RegistryOptions,
  ) {
    const maxSize = options.maxCachedFacts;
    this.cache = new LRUCache<string, Entry>({
      max: options.maxActors,
      // An owner larger than the whole budget is charged the whole budget, so it is kept, alone.
      ...(maxSize === undefined ? {} : { maxSize, sizeCalculation: (entry: Entry) => Math.min(maxSize, 1 + entry.charged) }),
      ttl: options.idleMs,
      updateAgeOnGet: true,
      ttlAutopurge: true,
      dispose: (entry, key, reason) => {
        // 'set' is a re-charge of the same actor, not its departure.
        if (reason !== 'set' && entry.actor.busy) this.draining.set(key, entry.actor);
      },
    });
  }

  get size(): number {
    return this.cache.size;
  }

  actorFor(scope: Scope): OwnerActor {
    // Length-prefixed, so no two scopes share a key whatever characters they hold.
    const key = `${scope.tenant.length}:${scope.tenant}${scope.partition === null ? '-' : `${scope.partition.length}:${scope.partition}`}${scope.entityId}`;
    const entry = this.cache.get(key);
    if (entry) {
      if (drifted(entry)) this.admit(key, entry.actor);
      return entry.actor;
    }
    let actor = this.draining.get(key);
    if (actor) this.draining.delete(key);
    actor ??= new OwnerActor(scope, this.deps);
    this.admit(key, actor);
    this.sweepDraining();
    return actor;
  }

  /** (Re)inserts an actor charged with its current weight; lru-cache sizes an entry only when it is set. */
  private admit(key: string, actor: OwnerActor): void {
    this.cache.set(key, { actor, charged: actor.weight });
  }

  private sweepDraining(): void {
    for (const [key, actor] of this.draining) if (!actor.busy) this.draining.delete(key);
  }
}

interface Entry {
  actor: OwnerActor;
  /** The weight the budget counted when the entry was set. */
  charged: number;
}

/** Re-charging on every call would cost a cache write per request; facts arrive one at a time. */
function drifted(entry: Entry): boolean {
  return Math.abs(entry.actor.weight - entry.charged) > Math.max(64, entry.charged / 8);
}
