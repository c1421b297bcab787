import { LRUCache } from 'lru-cache';
import { FactIndex } from '../domain/fact-index.js';
import type { Scope } from '../domain/scope.js';
import { conflict } from '../errors.js';
import { heldWriteConflict, type OwnerHold } from '../store/owner-holds.js';
import { OwnerActor, type OwnerActorDeps } from './owner-actor.js';

/** Which owners are held (erased or imported): none of them gets an actor (src/store/owner-holds.ts). */
export interface HoldLookup {
  holdOf(scope: Scope): OwnerHold | undefined;
}

export interface RegistryOptions {
  /** Most actors kept in memory; the least recently used idle one goes first. */
  maxActors: number;
  /** An actor unused this long is dropped (it is rebuilt from LMDB on next use). */
  idleMs: number;
  /**
   * The residency budget: bytes of owner state held in memory across all actors (facts, vectors and the
   * actors themselves, as `OwnerActor.weight` counts them). Least recently used actors go first; an
   * owner larger than the whole budget is still served, alone. Unbounded when absent.
   */
  maxResidentBytes?: number;
}

/**
 * Scope → actor, created on first use (a read of an owner's facts alone waits for its second: `factsFor`),
 * with one residency budget over everything the actors hold. An actor leaving the cache (budget, count or
 * idle time) drops its state once it is idle: its facts, and its vector index, written back to disk. One
 * evicted while it still has work in flight moves to `draining` and is handed out again until it is idle,
 * so one owner never has two writers (or two indexes) at once.
 * A held owner (being erased or imported) gets no actor: asking for one is 409 `conflict`, so no write, and
 * no workflow's activity, can reach it until the hold is released.
 */
export class ActorRegistry {
  private readonly draining = new Map<string, OwnerActor>();
  private readonly cache: LRUCache<string, Entry>;
  /** Owners whose facts were read lately while they were not in memory: their next read makes them resident (`factsFor`). */
  private readonly readOnce: LRUCache<string, true>;
  private readonly maxSize: number | undefined;
  private readonly sweeper: NodeJS.Timeout;
  private readonly idleMs: number;
  /** Whether a sweep of idle actors is under way (it goes in slices, see `sweep`). */
  private sweeping = false;
  private closing = false;
  private evicted = 0;
  /** The sum of the cached entries' `charged`, kept as they change: a scrape must not walk every actor. */
  private chargedBytes = 0;

  constructor(
    private readonly deps: OwnerActorDeps & { holds?: HoldLookup },
    options: RegistryOptions,
  ) {
    const maxSize = (this.maxSize = options.maxResidentBytes);
    this.idleMs = options.idleMs;
    // Idle actors are swept (below), not given a timer each: with one per actor, every request's `get`
    // cleared and set a timer (~1.2% of an assertion's CPU), and a million owners meant a million timers.
    this.cache = new LRUCache<string, Entry>({
      max: options.maxActors,
      ...(maxSize === undefined ? {} : { maxSize, sizeCalculation: (entry: Entry) => this.sizeOf(entry.charged) }),
      // 'set' is a re-charge of the same actor, not its departure; 'delete' is `drop`, which discards it
      // itself, or the sweep, which releases what it deletes.
      dispose: (entry, key, reason) => {
        this.chargedBytes -= entry.charged;
        if (reason !== 'set' && reason !== 'delete' && !this.closing) this.release(key, entry.actor);
      },
    });
    this.readOnce = new LRUCache<string, true>({ max: options.maxActors });
    this.sweeper = setInterval(() => this.sweep(), sweepPeriod(options.idleMs)).unref();
  }

  get size(): number {
    return this.cache.size;
  }

  /** Actors dropped from the cache since start (least recently used past the budget, or idle): `engram_owner_evictions_total`. */
  get evictions(): number {
    return this.evicted;
  }

  /**
   * Bytes the actors in the cache hold now, as the budget counts them (draining actors are on their way out
   * and not counted). Kept as a running sum: summing 10,000 actors' weights at each scrape of GET /metrics
   * stalled the event loop ~20 ms (issue 16).
   */
  get residentBytes(): number {
    return this.chargedBytes;
  }

  /** The owner's actor; 409 `conflict` while the owner is held. */
  actorFor(scope: Scope): OwnerActor {
    this.refuseHeld(scope);
    return this.resident(scope);
  }

  /**
   * The owner's committed facts, for a read; 409 `conflict` while the owner is held. A resident owner's are
   * its actor's. An owner not in memory is read from LMDB into an index for this read alone, and becomes
   * resident at its next read (while it is among the last `maxActors` owners read so) or at any write: a
   * sweep reading many owners once (a scan, an export, cold reads after a restart) builds no actors and
   * evicts no owner in use, as 2Q's admission keeps a one-time access out of a cache. With no actor, no write of
   * the owner is in flight (an actor with work in flight is never dropped), so LMDB holds what its actor would.
   */
  factsFor(scope: Scope): FactIndex {
    this.refuseHeld(scope);
    const key = keyOf(scope);
    if (this.cache.has(key) || this.draining.has(key) || this.readOnce.delete(key)) return this.resident(scope).facts();
    this.readOnce.set(key, true);
    return new FactIndex(this.deps.graph.loadFacts(scope));
  }

  /** 409 `conflict` while the owner is held (being erased or imported). */
  private refuseHeld(scope: Scope): void {
    const hold = this.deps.holds?.holdOf(scope);
    if (hold) throw heldWriteConflict(hold);
  }

  /** The actor of an owner held for an import: the import's own writer, the one let through its hold. */
  importerFor(scope: Scope): OwnerActor {
    if (this.deps.holds?.holdOf(scope)?.kind !== 'importing') throw conflict('this owner (entity_id) is not being imported');
    return this.resident(scope);
  }

  private resident(scope: Scope): OwnerActor {
    const key = keyOf(scope);
    const entry = this.cache.get(key);
    if (entry) {
      entry.usedAt = performance.now();
      return entry.actor;
    }
    let actor = this.draining.get(key);
    if (actor) this.draining.delete(key);
    actor ??= this.create(key, scope);
    this.charge(key, actor);
    return actor;
  }

  /**
   * Takes the owner's actor out (call once the owner is held, so no other is made), waits for its work in
   * flight, and drops its state without writing its vector index back: the owner is being erased.
   */
  async drop(scope: Scope): Promise<void> {
    const key = keyOf(scope);
    const actor = this.cache.peek(key)?.actor ?? this.draining.get(key);
    this.draining.delete(key);
    this.cache.delete(key);
    if (!actor) return;
    while (actor.busy) await actor.idle();
    await actor.discard();
  }

  /** How many owners matching `which` have work in flight (a move waits for none before it copies them). */
  busyWhere(which: (scope: Scope) => boolean): number {
    let busy = 0;
    for (const actor of [...this.draining.values(), ...[...this.cache.values()].map((entry) => entry.actor)]) {
      if (actor.busy && which(actor.scope)) busy++;
    }
    return busy;
  }

  /** Waits for the work in flight of every actor, then drops them all, writing vector indexes back (shutdown). */
  async close(): Promise<void> {
    const actors = [...this.draining.values(), ...[...this.cache.values()].map((entry) => entry.actor)];
    this.closing = true;
    clearInterval(this.sweeper);
    this.draining.clear();
    this.cache.clear();
    await Promise.all(
      actors.map(async (actor) => {
        while (actor.busy) await actor.idle();
        await actor.unload();
      }),
    );
  }

  private create(key: string, scope: Scope): OwnerActor {
    const actor: OwnerActor = new OwnerActor(scope, this.deps, () => this.resized(key, actor));
    return actor;
  }

  /** (Re)inserts an actor charged with its current weight; lru-cache sizes an entry only when it is set. */
  private charge(key: string, actor: OwnerActor): void {
    const charged = actor.weight;
    // A re-charge comes from the owner's own work: it counts as a use, so the cache's order stays that of `usedAt`.
    this.cache.set(key, { actor, charged, usedAt: performance.now() });
    // After the set: replacing an entry disposes of the one it replaces (subtracting its charge) within it.
    if (this.cache.peek(key)?.actor === actor) this.chargedBytes += charged;
  }

  /**
   * An actor's weight changed: it is re-charged at once (evicting the least recently used others when it
   * no longer fits), so the budget always counts what the cached actors hold.
   */
  private resized(key: string, actor: OwnerActor): void {
    const entry = this.cache.peek(key);
    // Draining or gone: not counted, and it drops its state once idle.
    if (entry?.actor !== actor || entry.charged === actor.weight) return;
    if (this.maxSize !== undefined) return this.charge(key, actor);
    // No budget: nothing to evict, so the entry is re-weighed in place.
    this.chargedBytes += actor.weight - entry.charged;
    entry.charged = actor.weight;
  }

  /** An owner larger than the whole budget is charged the whole budget, so it is kept, alone. */
  private sizeOf(weight: number): number {
    return Math.max(1, Math.min(this.maxSize ?? Infinity, Math.ceil(weight)));
  }

  /**
   * Releases the actors unused for `idleMs`, least recently used first, in slices of SWEEP_SLICE per turn of
   * the event loop: the cache's order is that of last use, so the idle ones are its oldest entries, found
   * without walking the others. lru-cache's own `purgeStale` (with a `ttl`) walked every entry and released
   * every idle actor in one task: 10,000 actors going idle together stalled the event loop ~30 ms.
   */
  private sweep(cutoff = performance.now() - this.idleMs, continued = false): void {
    if (this.sweeping && !continued) return;
    const idle: Array<[string, Entry]> = [];
    for (const key of this.cache.rkeys()) {
      const entry = this.cache.peek(key);
      if (!entry || entry.usedAt > cutoff || idle.length === SWEEP_SLICE) break;
      idle.push([key, entry]);
    }
    for (const [key, entry] of idle) {
      this.cache.delete(key);
      this.release(key, entry.actor);
    }
    this.sweeping = idle.length === SWEEP_SLICE && !this.closing;
    if (this.sweeping) setImmediate(() => this.sweep(cutoff, true));
  }

  /** The actor left the cache: its state goes once it is idle, unless it is handed out again before. */
  private release(key: string, actor: OwnerActor): void {
    this.evicted++;
    if (!actor.busy) {
      void actor.unload();
      return;
    }
    this.draining.set(key, actor);
    void this.drain(key, actor);
  }

  private async drain(key: string, actor: OwnerActor): Promise<void> {
    while (actor.busy) await actor.idle();
    if (this.draining.get(key) !== actor) return;
    this.draining.delete(key);
    await actor.unload();
  }
}

interface Entry {
  actor: OwnerActor;
  /** The weight the budget counted when the entry was set. */
  charged: number;
  /** When the owner was last used (`performance.now()`): the sweep releases those unused for `idleMs`. */
  usedAt: number;
}

/** Idle actors released per turn of the event loop (~3 µs each). */
const SWEEP_SLICE = 500;

/** How often idle actors are looked for: an actor unused for `idleMs` goes within half as long again, at most 30 s later. */
function sweepPeriod(idleMs: number): number {
  return Math.max(50, Math.min(idleMs / 2, 30_000));
}

/** Length-prefixed, so no two scopes share a key whatever characters they hold. */
function keyOf(scope: Scope): string {
  return `${scope.tenant.length}:${scope.tenant}${scope.partition === null ? '-' : `${scope.partition.length}:${scope.partition}`}${scope.entityId}`;
}
