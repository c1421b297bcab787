import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Entity } from '../../src/domain/entities.js';
import type { Fact } from '../../src/domain/facts.js';
import type { Scope } from '../../src/domain/scope.js';
import { GraphStore } from '../../src/store/graph.js';
import { openStore, scopeKey, type Store } from '../../src/store/lmdb.js';
import { SLOT_BYTES } from '../../src/store/owner-keys.js';

const MASTER = Buffer.alloc(32, 3);
const dirs: string[] = [];
const open = (dir: string, encrypt = true): Store => openStore(dir, 'full', { masterKey: MASTER, encrypt });
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'engram-owner-keys-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const alice: Scope = { tenant: 'acme', partition: null, entityId: 'alice' };
const bob: Scope = { tenant: 'acme', partition: 'p1', entityId: 'bob' };
const carol: Scope = { tenant: 'globex', partition: null, entityId: 'carol' };

function fact(id: string, value: string): Fact {
  return { fact_id: id, predicate: 'likes', value, subject_type: 'owner' } as unknown as Fact;
}

function entity(displayName: string): Entity {
  return { memory_entity_id: 'e1', entity_id: 'owner', partition: null, entity_type: 'person', display_name: displayName, aliases: [], attributes: {}, created_at: 1, updated_at: 1 };
}

const slotOf = (store: Store, scope: Scope) => store.env.openDB<number, Array<string | number>>({ name: 'owner_keys' }).get(scopeKey(scope));
const slotBytes = (dir: string, slot: number) => readFileSync(join(dir, 'owner-keys')).subarray(slot * SLOT_BYTES, (slot + 1) * SLOT_BYTES);

describe('owner data keys (DATA_DIR/owner-keys)', () => {
  it('allocates a key on the first sealed write, in a 0600 file, and finds it again after a reopen', async () => {
    const dir = tempDir();
    let store = open(dir);
    await new GraphStore(store).putFact(alice, fact('f1', 'marker-reopen'));
    const slot = slotOf(store, alice)!;
    expect(slot).toBe(0);
    expect(slotBytes(dir, slot).some((b) => b !== 0)).toBe(true);
    expect(statSync(join(dir, 'owner-keys')).mode & 0o777).toBe(0o600);
    await store.close();

    store = open(dir);
    expect(new GraphStore(store).getFact(alice, 'f1')).toMatchObject({ value: 'marker-reopen' });
    await store.close();
  });

  it('gives owners allocated in the same turn (plain puts, before any commit) distinct slots, and one slot per owner', async () => {
    const store = open(tempDir());
    const graph = new GraphStore(store);
    await Promise.all([graph.putFact(alice, fact('a1', 'x')), graph.putFact(bob, fact('b1', 'y')), graph.putFact(alice, fact('a2', 'z'))]);
    expect(new Set([slotOf(store, alice), slotOf(store, bob)])).toEqual(new Set([0, 1]));
    expect(graph.getFact(alice, 'a2')).toMatchObject({ value: 'z' });
    expect(graph.getFact(bob, 'b1')).toMatchObject({ value: 'y' });
    await store.close();
  });

  it('destroy zeroes the slot on disk, and the owner records sealed under it can never be opened again', async () => {
    const dir = tempDir();
    const store = open(dir);
    const graph = new GraphStore(store);
    await graph.putFact(alice, fact('f1', 'marker-destroy'));
    await graph.putFact(bob, fact('f1', 'kept'));
    const key = [...scopeKey(alice), 'fact', 'f1'];
    const sealed = store.records.get(key);
    const slot = slotOf(store, alice)!;

    await store.keys.destroy(alice);
    expect([...slotBytes(dir, slot)].every((b) => b === 0)).toBe(true);
    expect(slotOf(store, alice)).toBeUndefined();
    // The record left where it was (as LMDB leaves a copy in freed pages) is unreadable.
    expect(() => graph.getFact(alice, 'f1')).toThrow(/destroyed/);
    expect(() => store.content.open(key, sealed)).toThrow();
    // Another owner is untouched; destroying again changes nothing.
    expect(graph.getFact(bob, 'f1')).toMatchObject({ value: 'kept' });
    await store.keys.destroy(alice);
    await store.close();

    // Not from a cache either: a reopened store cannot open it.
    const again = open(dir);
    expect(() => again.content.open(key, sealed)).toThrow();
    await again.close();
  });

  it('reuses a destroyed slot for the next new owner, with a new key that does not open the old records', async () => {
    const dir = tempDir();
    const store = open(dir);
    const graph = new GraphStore(store);
    await graph.putFact(alice, fact('f1', 'old'));
    await graph.putFact(bob, fact('f1', 'b'));
    const oldKey = [...scopeKey(alice), 'fact', 'f1'];
    const oldSealed = store.records.get(oldKey);
    const slot = slotOf(store, alice)!;
    await store.keys.destroy(alice);
    await graph.putFact(carol, fact('f1', 'new'));
    expect(slotOf(store, carol)).toBe(slot);
    expect(statSync(join(dir, 'owner-keys')).size).toBe(2 * SLOT_BYTES);
    expect(graph.getFact(carol, 'f1')).toMatchObject({ value: 'new' });
    // The owner written again gets a fresh key in a fresh slot: its old records stay unreadable.
    await graph.putFact(alice, fact('f2', 'after'));
    expect(slotOf(store, alice)).toBe(2);
    expect(() => store.content.open(oldKey, oldSealed)).toThrow();
    expect(graph.getFact(alice, 'f2')).toMatchObject({ value: 'after' });
    await store.close();

    const reopened = open(dir);
    expect(new GraphStore(reopened).getFact(carol, 'f1')).toMatchObject({ value: 'new' });
    await reopened.close();
  });

  it('syncs a new slot to disk before the commit that records it (queued puts and transactions)', async () => {
    const store = open(tempDir());
    const graph = new GraphStore(store);
    // What each sync saw: whether a slot was waiting for it, and whether LMDB had already committed the owner's slot.
    const syncs: Array<{ pending: boolean; committed: boolean }> = [];
    const keys = store.keys as unknown as { flush(): void; dirty: boolean };
    const flush = keys.flush.bind(keys);
    let watched: Scope = alice;
    keys.flush = () => {
      if (keys.dirty) syncs.push({ pending: true, committed: slotOf(store, watched) !== undefined });
      flush();
    };
    await graph.putFact(alice, fact('f1', 'queued'));
    expect(syncs).toEqual([{ pending: true, committed: false }]);
    watched = bob;
    let inside = false;
    await store.transaction(() => {
      graph.putEntity(bob, entity('B'), undefined);
      inside = true;
    });
    // Inside the write transaction LMDB shows its own writes: the sync ran before it returned, so before its commit.
    expect(inside).toBe(true);
    expect(syncs).toHaveLength(2);
    expect(syncs[1]!.pending).toBe(true);
    await store.close();
  });

  it('prepares a new owner\'s key before its write: the slot is on disk first, the write syncs nothing, and the owner reads back after a reopen', async () => {
    const dir = tempDir();
    let store = open(dir);
    const keys = store.keys as unknown as { flush(): void; dirty: boolean };
    const flush = keys.flush.bind(keys);
    let dirtyAtCommit = 0;
    keys.flush = () => {
      if (keys.dirty) dirtyAtCommit++;
      flush();
    };
    const owner: [string, string, string] = [alice.tenant, '', alice.entityId];
    const ready = store.keys.prepare(owner);
    expect(ready).toBeInstanceOf(Promise);
    // Two writes of the owner waiting for the same preparation share one key.
    expect(store.keys.prepare(owner)).toBe(ready);
    await ready;
    expect(slotBytes(dir, 0).some((b) => b !== 0)).toBe(true);
    await new GraphStore(store).putFact(alice, fact('f1', 'marker-prepared'));
    expect(dirtyAtCommit).toBe(0);
    expect(slotOf(store, alice)).toBe(0);
    expect(store.keys.prepare(owner)).toBeUndefined();
    await store.close();

    store = open(dir);
    expect(new GraphStore(store).getFact(alice, 'f1')).toMatchObject({ value: 'marker-prepared' });
    await store.close();
  });

  it('prepares many new owners at once with distinct slots, each owner\'s records reading back after a reopen', async () => {
    const dir = tempDir();
    let store = open(dir);
    const owners: Scope[] = Array.from({ length: 40 }, (_, i) => ({ tenant: 'acme', partition: null, entityId: `o${i}` }));
    await Promise.all(
      owners.map(async (owner, i) => {
        await store.keys.prepare([owner.tenant, '', owner.entityId]);
        await new GraphStore(store).putFact(owner, fact('f1', `value ${i}`));
      }),
    );
    expect(new Set(owners.map((owner) => slotOf(store, owner))).size).toBe(owners.length);
    await store.close();

    store = open(dir);
    owners.forEach((owner, i) => expect(new GraphStore(store).getFact(owner, 'f1')).toMatchObject({ value: `value ${i}` }));
    await store.close();
  });

  it('allocates inside a transaction and the key is durable with it', async () => {
    const dir = tempDir();
    const store = open(dir);
    const graph = new GraphStore(store);
    await store.transaction(() => {
      graph.putEntity(alice, entity('In A Transaction'), undefined);
    });
    await store.close();
    const reopened = open(dir);
    expect(new GraphStore(reopened).getEntity(alice, 'e1')).toMatchObject({ display_name: 'In A Transaction' });
    await reopened.close();
  });
});
