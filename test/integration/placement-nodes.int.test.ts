import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ownerRef, placementOf, type ConsolidateInput, type ConsolidateResult } from '../../src/jobs/contract.js';
import { PlacementMap } from '../../src/placement/placement-map.js';
import { placementKey } from '../../src/placement/scope-key.js';
import { KEYS, startTestService, type TestService } from '../helpers/service.js';

/**
 * Two nodes sharing one Temporal task queue, as docs/scale-out.md deploys them, each with its own LMDB.
 * Before node queues, half the consolidations of such a pair ran on the node that did not hold the owner
 * and reported an empty owner; now every activity runs on the node the placement map names.
 */
const taskQueue = `placement-test-${randomUUID()}`;
const dir = mkdtempSync(join(tmpdir(), 'engram-placement-nodes-'));
const mapA = join(dir, 'node-a.map');
const mapB = join(dir, 'node-b.map');
const nodes: Record<'node-a' | 'node-b', TestService> = {} as never;
let temporal: Connection;

/** Owners of tenant acme (placed whole) live on node-a; platform's partitions (placed by partition) alternate. */
const initial = PlacementMap.of(['node-a', 'node-b'], [])
  .withScope(placementKey({ tenant: 'acme', partition: null }, false), 'node-a')
  .withScope(placementKey({ tenant: 'platform', partition: 'p-a' }, true), 'node-a')
  .withScope(placementKey({ tenant: 'platform', partition: 'p-b' }, true), 'node-b');

beforeAll(async () => {
  writeFileSync(mapA, initial.format());
  writeFileSync(mapB, initial.format());
  for (const [node, map] of [['node-a', mapA], ['node-b', mapB]] as const) {
    nodes[node] = await startTestService({
      env: { TEMPORAL_ENABLED: 'true', TEMPORAL_ADDRESS: inject('temporalAddress'), TEMPORAL_TASK_QUEUE: taskQueue, NODE_ID: node, PLACEMENT_MAP: map },
    });
  }
  temporal = await Connection.connect({ address: inject('temporalAddress') });
});
afterAll(async () => {
  await temporal?.close();
  await Promise.all(Object.values(nodes).map((node) => node.stop()));
  rmSync(dir, { recursive: true, force: true });
});

const owner = (partition: string | null, entity: string) => `entity_id=${entity}${partition === null ? '' : `&partition=${partition}`}`;

/** Three facts, two of them the same value, on the owner's node: consolidation retracts exactly one. */
async function seed(node: TestService, key: string, query: string): Promise<void> {
  for (const value of ['Green Tea', ' green TEA ', 'coffee']) {
    const res = await node.call('POST', `/v1/memory/facts?${query}`, { key, body: { predicate: 'likes', value, cardinality: 'multi' } });
    expect(res.status).toBe(201);
  }
}

describe('two nodes, one task queue', () => {
  it('answers 421 misdirected, never 404, for a scope the map places on the other node', async () => {
    const query = owner(null, `user-${randomUUID()}`);
    await seed(nodes['node-a'], KEYS.acme, query);
    for (const [method, path] of [['GET', `/v1/memory/facts?${query}`], ['POST', `/v1/memory/facts?${query}`], ['GET', '/v1/memory/erasures/nothing']] as const) {
      const res = await nodes['node-b'].call(method, path, { key: KEYS.acme, body: method === 'POST' ? { predicate: 'likes', value: 'x', cardinality: 'multi' } : undefined });
      expect(res.status).toBe(421);
      expect(res.body).toMatchObject({ code: 'misdirected' });
      expect(res.body.error).toContain('node-a');
    }
    // Nothing was written on node-b: the owner there is still empty, and node-a holds the three facts.
    expect((await nodes['node-a'].call('GET', `/v1/memory/facts?${query}`)).body.facts).toHaveLength(3);
    // A multi-tenant key is placed by partition: p-b is node-b's, p-a node-a's.
    expect((await nodes['node-a'].call('GET', `/v1/memory/facts?${owner('p-b', 'u')}`, { key: KEYS.platform })).status).toBe(421);
    expect((await nodes['node-b'].call('GET', `/v1/memory/facts?${owner('p-b', 'u')}`, { key: KEYS.platform })).status).toBe(200);
    // The API document names no scope: any node answers it.
    expect((await nodes['node-b'].call('GET', '/v1/openapi.json', { key: KEYS.acme })).status).toBe(200);
  });

  it('consolidates every owner on its own node: eight of eight retract their duplicate', async () => {
    const owners = Array.from({ length: 8 }, (_, i) => {
      const [partition, node] = i % 2 === 0 ? (['p-a', 'node-a'] as const) : (['p-b', 'node-b'] as const);
      return { node, query: owner(partition, `user-${i}-${randomUUID()}`) };
    });
    for (const o of owners) await seed(nodes[o.node], KEYS.platform, o.query);
    const reports = await Promise.all(owners.map((o) => nodes[o.node].call('POST', `/v1/memory/consolidate?${o.query}`, { key: KEYS.platform })));
    for (const res of reports) {
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ active_facts_before: 3, active_facts_after: 2, retracted: 1 });
    }
  });

  it('places a refused activity again once the map settles: a job started before a move runs where the scope is', async () => {
    const entity = `user-${randomUUID()}`;
    const scope = { tenant: 'platform', partition: 'p-a', entityId: entity };
    await seed(nodes['node-a'], KEYS.platform, owner('p-a', entity));
    // The nodes disagree, as they may for a moment during a move: node-a reads p-a as moved to node-b, and
    // node-b as still on node-a. Each refuses the activity as misdirected, and the workflow tries again.
    const key = placementKey(placementOf({ tenant: 'platform', partition: 'p-a' }), true);
    writeFileSync(mapA, initial.withScope(key, 'node-b').format());
    await expect.poll(() => nodes['node-a'].call('GET', `/v1/memory/facts?${owner('p-a', entity)}`, { key: KEYS.platform }).then((r) => r.status), { timeout: 5000 }).toBe(421);
    const client = new Client({ connection: temporal });
    const input: ConsolidateInput = { owner: ownerRef(scope), activity: { start_to_close_timeout_ms: 10_000, retry: { initial_interval_ms: 100, backoff_coefficient: 1, maximum_interval_ms: 100, maximum_attempts: 3 } } };
    const handle = await client.workflow.start('consolidate', { taskQueue, workflowId: `placement-test/${entity}`, args: [input] });
    // Refused at least once...
    await expect.poll(async () => JSON.stringify(await handle.fetchHistory()).includes('misdirected'), { timeout: 15_000, interval: 250 }).toBe(true);
    // ...until node-a's map places p-a home again: the job then runs on node-a, where the facts are.
    writeFileSync(mapA, initial.format());
    expect(await handle.result()).toEqual({ active_facts_before: 3, active_facts_after: 2, retracted: 1 } satisfies ConsolidateResult);
  });

  it('lets only an admin key move a scope, and only from the node that serves it', async () => {
    const transfer = (node: TestService, key: string, state?: string) =>
      node.call(state === undefined ? 'GET' : 'PUT', '/v1/admin/scopes/transfer', { key, ...(state === undefined ? {} : { body: { state } }) });
    expect((await transfer(nodes['node-a'], KEYS.acme)).status).toBe(401);
    expect((await transfer(nodes['node-a'], KEYS.acmeAdmin)).body).toEqual({ node: 'node-a', host: 'node-a', state: 'none', busy_owners: 0, held_owners: 0 });
    // acme is node-a's: node-b can neither freeze it nor give up a copy it does not serve... but may receive it.
    expect((await transfer(nodes['node-b'], KEYS.acmeAdmin, 'frozen')).status).toBe(409);
    expect((await nodes['node-a'].call('DELETE', '/v1/admin/scopes/copy', { key: KEYS.acmeAdmin })).status).toBe(409);
    expect((await transfer(nodes['node-a'], KEYS.acmeAdmin, 'receiving')).status).toBe(409);
    expect((await transfer(nodes['node-a'], KEYS.acmeAdmin, 'bogus')).status).toBe(400);
  });

  it('freezes a scope for a move: reads go on, every write answers 503 with Retry-After, then writes resume when unfrozen', async () => {
    const query = owner(null, `user-${randomUUID()}`);
    await seed(nodes['node-a'], KEYS.acme, query);
    const put = (state: string) => nodes['node-a'].call('PUT', '/v1/admin/scopes/transfer', { key: KEYS.acmeAdmin, body: { state } });
    expect((await put('frozen')).body).toMatchObject({ state: 'frozen', host: 'node-a' });
    try {
      expect((await nodes['node-a'].call('GET', `/v1/memory/facts?${query}`)).body.facts).toHaveLength(3);
      expect((await nodes['node-a'].call('POST', '/v1/query', { body: {} })).status).toBe(200);
      const refused = await nodes['node-a'].call('POST', `/v1/memory/facts?${query}`, { body: { predicate: 'likes', value: 'late', cardinality: 'multi' } });
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('2');
      expect((await nodes['node-a'].call('POST', `/v1/documents?${query}`, { body: { content: 'late' } })).status).toBe(503);
      // A write that got past the HTTP check before the freeze is refused when its turn comes in the owner's queue.
      const actor = nodes['node-a'].deps.actors.actorFor({ tenant: 'acme', partition: null, entityId: query.split('=')[1]! });
      await expect(actor.upsertEntity({ entity_type: 'person' } as never)).rejects.toMatchObject({ code: 'unavailable' });
    } finally {
      expect((await put('none')).body.state).toBe('none');
    }
    expect((await nodes['node-a'].call('POST', `/v1/memory/facts?${query}`, { body: { predicate: 'likes', value: 'later', cardinality: 'multi' } })).status).toBe(201);
    expect((await nodes['node-a'].call('GET', `/v1/memory/facts?${query}`)).body.facts).toHaveLength(4);
  });
});
