import { describe, expect, it } from 'vitest';
import { Mailbox } from '../../src/actors/mailbox.js';
import { ActorRegistry } from '../../src/actors/registry.js';
import type { OwnerActorDeps } from '../../src/actors/owner-actor.js';

const deferred = <T = void>() => {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
};

describe('Mailbox', () => {
  it('runs prepare steps one after another in submission order', async () => {
    const box = new Mailbox();
    const order: string[] = [];
    const gate = deferred();
    const first = box.submit(async () => {
      order.push('prepare 1');
      await gate.promise;
    }, async () => order.push('apply 1'));
    const second = box.submit(() => order.push('prepare 2'), async () => order.push('apply 2'));
    await new Promise((r) => setTimeout(r, 10));
    expect(order).toEqual(['prepare 1']);
    gate.resolve();
    await Promise.all([first, second]);
    expect(order).toEqual(['prepare 1', 'apply 1', 'prepare 2', 'apply 2']);
  });

  it('reports an error to its caller and keeps serving', async () => {
    const box = new Mailbox();
    const failing = box.submit(() => {
      throw new Error('bad input');
    }, async () => 'never');
    await expect(failing).rejects.toThrow('bad input');
    await expect(box.submit(() => 2, async (n) => n * 2)).resolves.toBe(4);
    expect(box.busy).toBe(false);
  });

  it('does not wait for an apply to finish before the next command starts', async () => {
    const box = new Mailbox();
    const commit = deferred<string>();
    const slow = box.submit(() => undefined, () => commit.promise);
    const fast = box.submit(() => undefined, async () => 'fast');
    await expect(fast).resolves.toBe('fast');
    commit.resolve('slow');
    await expect(slow).resolves.toBe('slow');
  });
});

describe('ActorRegistry', () => {
  const deps = {} as OwnerActorDeps;
  const scope = (entityId: string) => ({ tenant: 't', partition: null, entityId });

  it('gives one actor per scope and separate actors to different scopes', () => {
    const registry = new ActorRegistry(deps, { maxActors: 10, idleMs: 60_000 });
    expect(registry.actorFor(scope('a'))).toBe(registry.actorFor(scope('a')));
    expect(registry.actorFor(scope('a'))).not.toBe(registry.actorFor(scope('b')));
    expect(registry.actorFor({ tenant: 't', partition: 'p', entityId: 'a' })).not.toBe(registry.actorFor(scope('a')));
    expect(registry.actorFor({ tenant: 'u', partition: null, entityId: 'a' })).not.toBe(registry.actorFor(scope('a')));
  });

  it('evicts the least recently used actor beyond its bound', () => {
    const registry = new ActorRegistry(deps, { maxActors: 2, idleMs: 60_000 });
    const a = registry.actorFor(scope('a'));
    registry.actorFor(scope('b'));
    registry.actorFor(scope('a'));
    registry.actorFor(scope('c'));
    expect(registry.size).toBe(2);
    expect(registry.actorFor(scope('a'))).toBe(a);
  });

  it('never hands out a second writer for an owner whose evicted actor is still busy', async () => {
    const registry = new ActorRegistry(deps, { maxActors: 1, idleMs: 60_000 });
    const a = registry.actorFor(scope('a'));
    const gate = deferred();
    // Make the actor busy through its mailbox, then evict it by using another owner.
    const busy = (a as unknown as { mailbox: Mailbox }).mailbox.submit(() => gate.promise, async () => undefined);
    registry.actorFor(scope('b'));
    expect(registry.actorFor(scope('a'))).toBe(a);
    gate.resolve();
    await busy;
  });

  // 1,800: more owners going idle together than one slice of the sweep releases.
  it.each([1, 1800])('drops the actors left idle for idleMs (%i of them), and keeps one in use', async (count) => {
    const registry = new ActorRegistry(deps, { maxActors: 5000, idleMs: 150 });
    const idle = Array.from({ length: count }, (_, i) => registry.actorFor(scope(`idle-${i}`)));
    const used = registry.actorFor(scope('used'));
    for (let i = 0; i < 8; i++) {
      await new Promise((r) => setTimeout(r, 50));
      expect(registry.actorFor(scope('used'))).toBe(used);
    }
    expect(registry.evictions).toBe(count);
    expect(registry.size).toBe(1);
    expect(registry.actorFor(scope('idle-0'))).not.toBe(idle[0]);
    await registry.close();
  });

  it('one owner waiting on a slow step does not block another owner', async () => {
    const registry = new ActorRegistry(deps, { maxActors: 10, idleMs: 60_000 });
    const gate = deferred();
    const boxOf = (id: string) => (registry.actorFor(scope(id)) as unknown as { mailbox: Mailbox }).mailbox;
    const slow = boxOf('slow').submit(() => gate.promise, async () => 'slow');
    await expect(boxOf('other').submit(() => 1, async (n) => n + 1)).resolves.toBe(2);
    gate.resolve();
    await expect(slow).resolves.toBe('slow');
  });
});
