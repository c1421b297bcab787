import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ActorRegistry } from '../../src/actors/registry.js';
import type { Scope } from '../../src/domain/scope.js';
import type { OwnerHold } from '../../src/store/owner-holds.js';
import { factCommand } from '../helpers/fact-command.js';
import { openTempGraph, type TempGraph } from '../helpers/graph.js';

/**
 * Reads of an owner not in memory (`ActorRegistry.factsFor`): answered from LMDB without making the owner
 * resident, until its second read or a write. Real LMDB in a temporary directory.
 */
const owner = (entityId: string): Scope => ({ tenant: 'acme', partition: null, entityId });

let temp: TempGraph;
let held: OwnerHold | undefined;
/** A registry over the stored owners, as a service finds them after a restart: none in memory. */
const restarted = () => new ActorRegistry({ ...temp.deps, holds: { holdOf: () => held } }, { maxActors: 3, idleMs: 60_000 });
const values = (registry: ActorRegistry, scope: Scope) => registry.factsFor(scope).list({ include_inactive: true, limit: 100 }).map((f) => [f.value, f.invalid_from === null]);

beforeEach(async () => {
  temp = openTempGraph('engram-read-admission-');
  held = undefined;
  for (const who of ['a', 'b', 'c', 'd']) {
    const actor = temp.actors.actorFor(owner(who));
    await actor.assertFact(factCommand('city', `${who} Paris`));
    temp.clock.advance(1000);
    await actor.assertFact(factCommand('city', `${who} Lyon`));
    await actor.assertFact(factCommand('team', `${who} blue`));
  }
});

afterEach(() => temp.close());

describe('facts read from an owner not in memory', () => {
  it('answers what the resident owner answers, and makes it resident only at its second read', async () => {
    const registry = restarted();
    const expected = [['a blue', true], ['a Lyon', true], ['a Paris', false]];
    expect(values(registry, owner('a'))).toEqual(expected);
    expect(registry.size).toBe(0);
    expect(values(registry, owner('a'))).toEqual(expected);
    expect(registry.size).toBe(1);
    expect(values(registry, owner('a'))).toEqual(expected);
    expect(registry.size).toBe(1);
    await registry.close();
  });

  it('evicts no resident owner for owners read once', async () => {
    const registry = restarted();
    const resident = registry.actorFor(owner('a'));
    for (const who of ['b', 'c', 'd']) values(registry, owner(who));
    expect(registry.size).toBe(1);
    expect(registry.actorFor(owner('a'))).toBe(resident);
    await registry.close();
  });

  it('sees every write acknowledged before it, and a write makes the owner resident', async () => {
    const registry = restarted();
    values(registry, owner('b'));
    const written = await registry.actorFor(owner('b')).assertFact(factCommand('city', 'b Nice'));
    expect(registry.size).toBe(1);
    expect(registry.factsFor(owner('b')).list({ limit: 100 }).map((f) => f.value)).toEqual(['b Nice', 'b blue']);
    // Another registry over the same store (nothing in memory): the acknowledged write is in LMDB.
    const other = restarted();
    expect(other.factsFor(owner('b')).get(written.fact_id)?.value).toBe('b Nice');
    expect(other.size).toBe(0);
    await Promise.all([registry.close(), other.close()]);
  });

  it('refuses a held owner as a write to it is refused: 409', async () => {
    const registry = restarted();
    held = { kind: 'erasing', receipt_id: 'rcpt_1', since: 0 };
    let refused: unknown;
    try {
      registry.factsFor(owner('a'));
    } catch (error) {
      refused = error;
    }
    expect(refused).toMatchObject({ status: 409 });
    expect(registry.size).toBe(0);
    await registry.close();
  });
});
