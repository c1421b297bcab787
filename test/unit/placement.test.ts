import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.js';
import { createLogger } from '../../src/log.js';
import { NodePlacement } from '../../src/placement/node-placement.js';
import { PlacementMap } from '../../src/placement/placement-map.js';
import { placementDigest, placementKey, placementSlot } from '../../src/placement/scope-key.js';
import { ScopeTransfers } from '../../src/placement/scope-transfers.js';

const log = createLogger('silent');

describe('placement keys', () => {
  it('places a tenant whole, or by partition, with the tenant URI-encoded so its first "/" ends it', () => {
    expect(placementKey({ tenant: 'acme', partition: 'p1' }, false)).toBe('acme');
    expect(placementKey({ tenant: 'acme', partition: 'p1' }, true)).toBe('acme/p1');
    expect(placementKey({ tenant: 'a/b c', partition: 'x/y z' }, true)).toBe('a%2Fb%20c/x/y z');
    expect(placementKey({ tenant: 'acme', partition: null }, true)).toBe('acme/');
  });

  it('hashes as HAProxy does: `crc32` and `sha2(256),hex,lower` of the same bytes', () => {
    // Values printed by HAProxy 2.6 for these strings (deploy/haproxy reads the same map).
    expect(placementSlot('acme', 1 << 30)).toBe(96778814);
    expect(placementSlot('héllo w/o', 64)).toBe(59);
    expect(placementDigest('acme')).toBe('822b33ad87c148a0a20a5ba7cd5ebcaa68d36a18e7aad165554903f52ca82757');
  });
});

describe('PlacementMap', () => {
  const map = PlacementMap.of(['node-a', 'node-b', 'node-c', 'node-a'], []).withScope('acme/moved', 'node-c');

  it('places a scope by its own line, else by its slot', () => {
    expect(map.nodeOf('acme/moved')).toBe('node-c');
    expect(map.pinned('acme/moved')).toBe(true);
    for (const key of ['acme', 'globex/p1', 'globex/p2', 'x']) {
      expect(map.nodeOf(key)).toBe(['node-a', 'node-b', 'node-c', 'node-a'][placementSlot(key, 4)]);
      expect(map.pinned(key)).toBe(false);
    }
    expect(map.nodes()).toEqual(['node-a', 'node-b', 'node-c']);
  });

  it('reads back what it writes, comments naming each scope', () => {
    const text = map.format();
    expect(text).toContain('@3 node-a\n');
    expect(text).toContain(`# acme%2Fmoved\n${placementDigest('acme/moved')} node-c\n`);
    const back = PlacementMap.parse(text);
    expect(back.slots).toEqual(map.slots);
    expect(back.nodeOf('acme/moved')).toBe('node-c');
    expect(back.format()).toBe(text);
  });

  it('refuses a map it cannot read, naming the line and the rule', () => {
    expect(() => PlacementMap.parse('@0 node-a\n@2 node-b\n')).toThrow('placement map line 2: slots must be listed in order from @0; expected @1');
    expect(() => PlacementMap.parse('@0 node a\n')).toThrow('line 1: expected "<key> <node>"');
    expect(() => PlacementMap.parse('@0 node.a\n')).toThrow('line 1: node id must match');
    expect(() => PlacementMap.parse('@0 node-a\nacme node-b\n')).toThrow('line 2: a key is @<slot> or the lowercase hex SHA-256');
    expect(() => PlacementMap.parse('# nothing\n')).toThrow('no slots');
  });
});

describe('NodePlacement', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'engram-placement-'));
    file = join(dir, 'placement.map');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('hosts every scope without a map', () => {
    const here = new NodePlacement('node-a', undefined, () => true, log);
    expect(here.hostOf({ tenant: 'acme', partition: 'p1' })).toBe('node-a');
    expect(() => here.assertHosted({ tenant: 'globex', partition: null })).not.toThrow();
  });

  it('refuses with 421 misdirected a scope the map places on another node, by tenant or by partition', () => {
    writeFileSync(file, PlacementMap.of(['node-a'], []).withScope('acme', 'node-b').withScope('globex/p2', 'node-b').format());
    const partitioned = new Set(['globex']);
    const here = new NodePlacement('node-a', file, (tenant) => partitioned.has(tenant), log);
    // acme is placed whole: every partition of it is node-b's.
    for (const partition of [null, 'p1']) {
      const error = (() => {
        try {
          here.assertHosted({ tenant: 'acme', partition });
        } catch (e) {
          return e;
        }
      })();
      expect(error).toBeInstanceOf(AppError);
      expect(error).toMatchObject({ code: 'misdirected', status: 421 });
    }
    // globex is placed by partition: p2 moved to node-b, p1 stays in its slot (node-a).
    expect(here.hostOf({ tenant: 'globex', partition: 'p2' })).toBe('node-b');
    expect(() => here.assertHosted({ tenant: 'globex', partition: 'p1' })).not.toThrow();
  });

  it('reads the file again on reload, and keeps the map it had when the new file is not valid', () => {
    writeFileSync(file, PlacementMap.of(['node-a'], []).format());
    const here = new NodePlacement('node-a', file, () => false, log);
    writeFileSync(file, PlacementMap.of(['node-b'], []).format());
    here.reload();
    expect(here.hostOf({ tenant: 'acme', partition: null })).toBe('node-b');
    writeFileSync(file, 'not a map\n');
    expect(() => here.reload()).toThrow('placement map line 1');
    here.reloadLogged();
    expect(here.hostOf({ tenant: 'acme', partition: null })).toBe('node-b');
  });

  it('follows changes of the file while it watches it', async () => {
    writeFileSync(file, PlacementMap.of(['node-a'], []).format());
    const here = new NodePlacement('node-a', file, () => false, log);
    here.watch();
    try {
      writeFileSync(file, PlacementMap.of(['node-a'], []).withScope('acme', 'node-b').format());
      await expect.poll(() => here.hostOf({ tenant: 'acme', partition: null }), { timeout: 5000, interval: 100 }).toBe('node-b');
    } finally {
      here.close();
    }
  });
});

describe('ScopeTransfers', () => {
  it('keeps a scope\'s move state across a restart (a frozen scope stays frozen)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'engram-transfers-'));
    try {
      const transfers = new ScopeTransfers(dir);
      expect(transfers.stateOf('acme')).toBe('none');
      transfers.set('acme', 'frozen');
      transfers.set('platform/p1', 'receiving');
      transfers.set('platform/p1', 'none');
      const reopened = new ScopeTransfers(dir);
      expect(reopened.stateOf('acme')).toBe('frozen');
      expect(reopened.stateOf('platform/p1')).toBe('none');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
