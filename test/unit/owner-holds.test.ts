import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Scope } from '../../src/domain/scope.js';
import { openStore, type Store } from '../../src/store/lmdb.js';
import { OwnerHolds, type OwnerHold } from '../../src/store/owner-holds.js';

const stores: Store[] = [];
const dirs: string[] = [];
const open = (dir: string): Store => {
  const store = openStore(dir, 'full', { masterKey: Buffer.alloc(32, 5), encrypt: true });
  stores.push(store);
  return store;
};
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'engram-owner-holds-'));
  dirs.push(dir);
  return dir;
};
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const alice: Scope = { tenant: 'acme', partition: null, entityId: 'alice' };
const bob: Scope = { tenant: 'acme', partition: 'p1', entityId: 'bob' };
const erasing: OwnerHold = { kind: 'erasing', receipt_id: 'era_1', since: 1 };
const importing: OwnerHold = { kind: 'importing', receipt_id: null, since: 2 };

describe('OwnerHolds', () => {
  it('answers a hold from the moment its transaction commits, and none once it is released', async () => {
    const holds = new OwnerHolds(open(tempDir()));
    expect(holds.holdOf(alice)).toBeUndefined();
    await holds.place(alice, erasing);
    expect(holds.holdOf(alice)).toEqual(erasing);
    expect(holds.holdOf(bob)).toBeUndefined();
    await holds.release(alice);
    expect(holds.holdOf(alice)).toBeUndefined();
  });

  it('keeps answering a hold placed while another is released in the same moment', async () => {
    const holds = new OwnerHolds(open(tempDir()));
    await holds.place(alice, erasing);
    // Issued together, the release first: however their commits settle, bob's hold must not be taken for none.
    const released = holds.release(alice);
    const placed = holds.write(() => holds.putHold(bob, importing));
    await released;
    await placed;
    expect(holds.holdOf(bob)).toEqual(importing);
    expect(holds.holdOf(alice)).toBeUndefined();
  });

  it('reads inside a write what the write has put, before it commits', async () => {
    const holds = new OwnerHolds(open(tempDir()));
    const seen = await holds.write(() => {
      holds.putHold(alice, importing);
      return holds.holdOf(alice);
    });
    expect(seen).toEqual(importing);
  });

  it('finds the holds a previous process left, and sees none after a refused write', async () => {
    const dir = tempDir();
    const first = open(dir);
    await new OwnerHolds(first).place(alice, importing);
    await first.close();
    stores.splice(stores.indexOf(first), 1);

    const holds = new OwnerHolds(open(dir));
    expect(holds.holdOf(alice)).toEqual(importing);
    // Refused before it puts anything, as Store.transaction requires (an import into an owner being erased).
    await expect(
      holds.write(() => {
        if (holds.holdOf(alice)) throw new Error('refused');
        holds.putHold(bob, erasing);
      }),
    ).rejects.toThrow('refused');
    expect(holds.holdOf(bob)).toBeUndefined();
    await holds.release(alice);
    expect(holds.holdOf(alice)).toBeUndefined();
  });

  it('refuses to put or remove a hold outside a write', () => {
    const holds = new OwnerHolds(open(tempDir()));
    expect(() => holds.putHold(alice, erasing)).toThrow(/only inside OwnerHolds.write/);
    expect(() => holds.removeHold(alice)).toThrow(/only inside OwnerHolds.write/);
  });
});
