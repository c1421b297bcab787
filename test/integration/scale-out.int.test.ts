import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ownerRef, type ConsolidateInput } from '../../src/jobs/contract.js';
import { startCluster, type Cluster } from '../helpers/cluster.js';
import { keyedCall, spawnService, type ServiceProcess } from '../helpers/process.js';

/**
 * docs/scale-out.md's topology with local processes: three nodes, HAProxy with the files `npm run
 * placement -- init` writes, and one Temporal dev server. Every flow through the balancer answers as one
 * node does; every job runs on the node that hosts its owner; a node down takes down its own scopes only.
 */
const KEYS = {
  acme: 'sk_scale_acme_0123456789abcdef',
  globex: 'sk_scale_globex_0123456789abcdef',
  initech: 'sk_scale_initech_0123456789abcdef',
  platform: 'sk_scale_platform_0123456789abcdef',
  platformAdmin: 'sk_scale_platform_admin_0123456789abcdef',
};
const keys = [
  { key: KEYS.acme, tenant: 'acme' },
  { key: KEYS.globex, tenant: 'globex' },
  { key: KEYS.initech, tenant: 'initech' },
  { key: KEYS.platform, tenant: 'platform', multi_tenant: true },
  { key: KEYS.platformAdmin, tenant: 'platform', multi_tenant: true, admin: true },
];

/** The scopes the flows run in: three tenants placed whole, and six partitions of a multi-tenant key. */
const SCOPES = [
  { key: KEYS.acme, tenant: 'acme', partition: null },
  { key: KEYS.globex, tenant: 'globex', partition: null },
  { key: KEYS.initech, tenant: 'initech', partition: null },
  ...['p0', 'p1', 'p2', 'p3', 'p4', 'p5'].map((partition) => ({ key: KEYS.platform, tenant: 'platform', partition })),
];

let cluster: Cluster;
let lone: ServiceProcess;
let temporal: Connection;
let provider: Server;
const CAPTION = 'A horizontal gradient from red to blue, like a sunset sky.';

beforeAll(async () => {
  const temporalAddress = inject('temporalAddress');
  // A loopback captioning provider (OpenAI-compatible chat completions), the same for every node.
  provider = createServer((req, res) => {
    req.resume().on('end', () => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ choices: [{ index: 0, message: { role: 'assistant', content: CAPTION } }] }));
    });
  });
  await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
  const yaml = join(mkdtempSync(join(tmpdir(), 'engram-scale-out-')), 'temporal.yaml');
  writeFileSync(yaml, ['media:', '  routes:', `    - { name: stub-vision, kind: caption, url: "http://127.0.0.1:${(provider.address() as AddressInfo).port}/v1", model: vision-1 }`].join('\n'));
  cluster = await startCluster({ nodes: ['node-a', 'node-b', 'node-c'], keys, temporalAddress, taskQueue: `scale-out-${randomUUID()}`, env: { TEMPORAL_CONFIG: yaml } });
  // The reference: one node alone, no map, the same keys.
  lone = await spawnService(
    { API_KEYS_FILE: cluster.keysFile, DATA_DIR: `${cluster.dir}/lone`, TEMPORAL_ENABLED: 'true', TEMPORAL_ADDRESS: temporalAddress, TEMPORAL_TASK_QUEUE: `scale-out-lone-${randomUUID()}` },
    { until: 'temporal' },
  );
  temporal = await Connection.connect({ address: temporalAddress });
}, 180_000);
afterAll(async () => {
  await temporal?.close();
  lone?.child.kill('SIGTERM');
  await lone?.exited;
  await cluster?.stop();
  provider?.close();
});

/** The task queues a job's activities were scheduled on (its local placement lookups aside). */
async function activityQueues(workflowId: string): Promise<string[]> {
  const history = await new Client({ connection: temporal }).workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).flatMap((e) => (e.activityTaskScheduledEventAttributes?.taskQueue?.name ? [e.activityTaskScheduledEventAttributes.taskQueue.name] : []));
}

const hostOf = async (scope: (typeof SCOPES)[number]) =>
  (await cluster.placement(['where', '--map', cluster.mapFile, '--tenant', scope.tenant, ...(scope.partition === null ? [] : ['--partition', scope.partition])])).trim();
const jobId = (job: string, scope: (typeof SCOPES)[number], owner: string) => `${job}/${scope.tenant}/${scope.partition ?? ''}/${owner}`;

const partitionQuery = (partition: string | null) => (partition === null ? '' : `&partition=${partition}`);

/**
 * One owner's life through the memory graph, documents, search, fields, queries and consolidation; answers
 * each step's status and body, with ids and instants replaced by their order of appearance so two runs
 * compare.
 */
async function flow(url: string, scope: (typeof SCOPES)[number], owner: string): Promise<unknown[]> {
  const call = keyedCall(scope.key);
  const q = `entity_id=${owner}${partitionQuery(scope.partition)}`;
  const steps: Array<[string, string, unknown?]> = [
    ['POST', `/v1/memory/entities?${q}`, { entity_type: 'person', memory_entity_id: 'ada', display_name: 'Ada' }],
    ['POST', `/v1/memory/entities?${q}`, { entity_type: 'org', memory_entity_id: 'engram', display_name: 'Engram' }],
    ['POST', `/v1/memory/relationships?${q}`, { from_entity_id: 'ada', to_entity_id: 'engram', relationship_type: 'works_at' }],
    ['POST', `/v1/memory/facts?${q}`, { predicate: 'likes', value: 'Green Tea', cardinality: 'multi' }],
    ['POST', `/v1/memory/facts?${q}`, { predicate: 'likes', value: ' green TEA ', cardinality: 'multi' }],
    ['POST', `/v1/memory/facts?${q}`, { predicate: 'city', value: 'Paris', cardinality: 'single' }],
    ['POST', `/v1/memory/facts?${q}`, { predicate: 'city', value: 'Berlin', cardinality: 'single' }],
    ['GET', `/v1/memory/graph?${q}&memory_entity_id=ada`],
    ['POST', `/v1/memory/consolidate?${q}`],
    ['GET', `/v1/memory/facts?${q}&include_inactive=true`],
    ['PUT', `/v1/schema/fields?${partitionQuery(scope.partition).slice(1)}`, { fields: [{ name: 'priority', type: 'int', source: { metadata: 'priority' } }] }],
    ['POST', `/v1/documents?${q}`, { content: 'The orchids need water on Thursday.', metadata: { priority: 2 } }],
    ['POST', `/v1/documents?${q}`, { content: 'Ada prefers green tea in the morning.', metadata: { priority: 5 } }],
    ['POST', `/v1/documents?${q}`, { content: 'Quarterly report for the Engram board.', metadata: { priority: 1 } }],
    ['GET', `/v1/search?${q}&q=${encodeURIComponent('what tea does Ada drink')}`],
    ['POST', `/v1/query?${partitionQuery(scope.partition).slice(1)}`, { filter: { field: 'priority', op: 'gte', value: 2 }, sort: [{ by: 'priority', dir: 'desc' }] }],
    ['POST', `/v1/query?${partitionQuery(scope.partition).slice(1)}`, { group_by: ['priority'], aggregate: [{ op: 'count' }] }],
  ];
  const answers: unknown[] = [];
  for (const [method, path, body] of steps) {
    const res = await call(url, method, path, body);
    answers.push({ step: `${method} ${path.split('?')[0]}`, status: res.status, body: res.body });
  }
  return normalize(answers);
}

const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$|^(doc|fact|rel|ent)_[0-9A-Za-z]+$/;
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Ids become `id#n` and instants `instant#n` in their order of appearance; scores keep 3 decimals. */
function normalize(value: unknown): unknown[] {
  const seen = new Map<string, string>();
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') {
      const kind = ULID.test(v) ? 'id' : INSTANT.test(v) ? 'instant' : null;
      if (kind === null) return v;
      if (!seen.has(v)) seen.set(v, `${kind}#${seen.size}`);
      return seen.get(v);
    }
    if (typeof v === 'number' && !Number.isInteger(v)) return Number(v.toFixed(3));
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).filter(([k]) => k !== 'request_id' && k !== 'took_ms').map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(value) as unknown[];
}

describe('three nodes behind HAProxy', () => {
  it('routes each scope to the node the map names, spreads scopes over the nodes, and answers as one node does', async () => {
    const hosts = new Set<string>();
    for (const scope of SCOPES) {
      const owner = `owner-${randomUUID()}`;
      const through = await flow(cluster.url, scope, owner);
      const alone = await flow(lone.url, scope, owner);
      expect(through).toEqual(alone);
      for (const step of through as Array<{ step: string; status: number }>) expect(step.status, step.step).toBeLessThan(300);
      // Every answer came from the node the map names, and that node holds the owner.
      const args = ['where', '--map', cluster.mapFile, '--tenant', scope.tenant, ...(scope.partition === null ? [] : ['--partition', scope.partition])];
      const host = (await cluster.placement(args)).trim();
      hosts.add(host);
      const res = await fetch(`${cluster.url}/v1/memory/facts?entity_id=${owner}${partitionQuery(scope.partition)}`, { headers: { authorization: `Bearer ${scope.key}` } });
      expect(res.headers.get('x-engram-node')).toBe(host);
      const direct = await keyedCall(scope.key)(cluster.nodes[host]!.url, 'GET', `/v1/memory/facts?entity_id=${owner}${partitionQuery(scope.partition)}`);
      expect(direct.body.facts.length).toBeGreaterThan(0);
    }
    expect(hosts.size).toBeGreaterThanOrEqual(2);
  });

  it('consolidates and captions owners of every node on their own node: all of them retract what they should', async () => {
    const owners = SCOPES.flatMap((scope) => [0, 1].map(() => ({ scope, owner: `owner-${randomUUID()}` })));
    const query = ({ scope, owner }: (typeof owners)[number]) => `entity_id=${owner}${partitionQuery(scope.partition)}`;
    for (const o of owners) {
      for (const value of ['Green Tea', ' green TEA ', 'coffee']) {
        expect((await keyedCall(o.scope.key)(cluster.url, 'POST', `/v1/memory/facts?${query(o)}`, { predicate: 'likes', value, cardinality: 'multi' })).status).toBe(201);
      }
    }
    const reports = await Promise.all(owners.map((o) => keyedCall(o.scope.key)(cluster.url, 'POST', `/v1/memory/consolidate?${query(o)}`)));
    for (const res of reports) expect(res.body).toEqual({ active_facts_before: 3, active_facts_after: 2, retracted: 1 });
    const image = readFileSync(new URL('../fixtures/media/image.png', import.meta.url)).toString('base64');
    for (const o of owners.filter((_, i) => i % 2 === 0)) {
      const host = await hostOf(o.scope);
      expect(await activityQueues(jobId('consolidate', o.scope, o.owner))).toEqual([`${cluster.taskQueue}.${host}`]);
      const media = await keyedCall(o.scope.key)(cluster.url, 'POST', `/v1/memory/media?${query(o)}`, { modality: 'image', content_type: 'image/png', data_base64: image });
      expect(media.status).toBe(201);
      expect(media.body.derived_text).toBe(CAPTION);
      expect(await activityQueues(`${jobId('caption-media', o.scope, o.owner)}/${media.body.doc_id}`)).toEqual([`${cluster.taskQueue}.${host}`]);
    }
  });

  it('routes a key added later to its tenant\'s node once the keys are reloaded, on the nodes (SIGHUP) and in HAProxy (runtime API)', async () => {
    const key = 'sk_scale_hooli_0123456789abcdef';
    const facts = () => fetch(`${cluster.url}/v1/memory/facts?entity_id=someone`, { headers: { authorization: `Bearer ${key}` } });
    expect((await facts()).status).toBe(401);
    writeFileSync(cluster.keysFile, JSON.stringify({ keys: [...keys, { key, tenant: 'hooli' }] }));
    for (const node of Object.values(cluster.nodes)) node.process!.child.kill('SIGHUP');
    await cluster.placement(['keys', '--out', dirname(cluster.mapFile), '--runtime-api', cluster.runtimeApi]);
    const host = (await cluster.placement(['where', '--map', cluster.mapFile, '--tenant', 'hooli'])).trim();
    await expect.poll(async () => (await facts()).status, { timeout: 10_000 }).toBe(200);
    expect((await facts()).headers.get('x-engram-node')).toBe(host);
  });

  it('answers 503 for the scopes of a node that is down, keeps the others fully working, and resumes its queued jobs when it returns', async () => {
    const placed = await Promise.all(SCOPES.map(async (scope) => ({ scope, host: await hostOf(scope) })));
    const victim = placed[0]!.host;
    const down = placed.filter((p) => p.host === victim);
    const up = placed.filter((p) => p.host !== victim);
    // An owner of the victim with facts to consolidate, written before it goes down.
    const waiting = { scope: down[0]!.scope, entity: `owner-${randomUUID()}` };
    const waitingQ = `entity_id=${waiting.entity}${partitionQuery(waiting.scope.partition)}`;
    for (const value of ['tea', 'TEA']) await keyedCall(waiting.scope.key)(cluster.url, 'POST', `/v1/memory/facts?${waitingQ}`, { predicate: 'likes', value, cardinality: 'multi' });

    await cluster.kill(victim);
    for (const { scope } of down) {
      const started = Date.now();
      const res = await keyedCall(scope.key)(cluster.url, 'GET', `/v1/memory/facts?entity_id=someone${partitionQuery(scope.partition)}`);
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ code: 'unavailable' });
      expect(Date.now() - started).toBeLessThan(10_000);
    }
    for (const { scope } of up) {
      const q = `entity_id=owner-${randomUUID()}${partitionQuery(scope.partition)}`;
      for (const value of ['x', ' X ']) expect((await keyedCall(scope.key)(cluster.url, 'POST', `/v1/memory/facts?${q}`, { predicate: 'p', value, cardinality: 'multi' })).status).toBe(201);
      expect((await keyedCall(scope.key)(cluster.url, 'POST', `/v1/memory/consolidate?${q}`)).body).toEqual({ active_facts_before: 2, active_facts_after: 1, retracted: 1 });
      expect((await keyedCall(scope.key)(cluster.url, 'POST', `/v1/documents?${q}`, { content: 'still here' })).status).toBe(201);
    }

    // A job for the victim's owner, started while it is down: its activity waits on the victim's queue...
    const input: ConsolidateInput = {
      owner: ownerRef({ tenant: waiting.scope.tenant, partition: waiting.scope.partition, entityId: waiting.entity }),
      activity: { start_to_close_timeout_ms: 10_000, retry: { initial_interval_ms: 200, backoff_coefficient: 1, maximum_interval_ms: 200, maximum_attempts: 3 } },
    };
    const handle = await new Client({ connection: temporal }).workflow.start('consolidate', { taskQueue: cluster.taskQueue, workflowId: `scale-out-waiting/${waiting.entity}`, args: [input] });
    // ...and runs there once the node is back, on the owner's own facts.
    await cluster.start(victim);
    expect(await handle.result()).toEqual({ active_facts_before: 2, active_facts_after: 1, retracted: 1 });
    const facts = await keyedCall(waiting.scope.key)(cluster.url, 'GET', `/v1/memory/facts?${waitingQ}`);
    expect(facts.status).toBe(200);
    expect(facts.body.facts).toHaveLength(1);
  });

  it('moves a scope to another node under a steady write load: nothing acknowledged is lost, and reads never fail', async () => {
    const partition = `moving-${randomUUID().slice(0, 8)}`;
    const call = keyedCall(KEYS.platform);
    const q = (owner: string) => `entity_id=${owner}&partition=${partition}`;
    const from = (await cluster.placement(['where', '--map', cluster.mapFile, '--tenant', 'platform', '--partition', partition])).trim();
    const to = Object.keys(cluster.nodes).find((id) => id !== from)!;
    const owners = ['u0', 'u1', 'u2', 'u3'];
    expect((await call(cluster.url, 'PUT', `/v1/schema/fields?partition=${partition}`, { fields: [{ name: 'priority', type: 'int', source: { metadata: 'priority' } }] })).status).toBe(200);
    for (const owner of owners) {
      expect((await call(cluster.url, 'POST', `/v1/documents?${q(owner)}`, { content: `The orchids of ${owner} need water on Thursday.`, metadata: { priority: 3 } })).status).toBe(201);
    }

    // Writers assert facts without pause, each retried after a 503 until acknowledged; a reader lists facts.
    const acknowledged: Array<{ owner: string; fact_id: string }> = [];
    const readStatuses: number[] = [];
    let writing = true;
    const writer = async (w: number) => {
      for (let n = 0; writing; n++) {
        const owner = owners[(w + n) % owners.length]!;
        for (;;) {
          const res = await call(cluster.url, 'POST', `/v1/memory/facts?${q(owner)}`, { predicate: 'note', value: `w${w}-${n}`, cardinality: 'multi' });
          if (res.status === 201) {
            acknowledged.push({ owner, fact_id: res.body.fact_id });
            break;
          }
          expect(res.status, JSON.stringify(res.body)).toBe(503);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
    };
    const reader = async () => {
      while (writing) readStatuses.push((await call(cluster.url, 'GET', `/v1/memory/facts?${q('u0')}&limit=5`)).status);
    };
    const load = Promise.all([writer(0), writer(1), writer(2), reader()]);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const before = acknowledged.length;
    const moved = await cluster.placement(
      ['move', '--map', cluster.mapFile, '--tenant', 'platform', '--partition', partition, '--to', to, '--nodes', cluster.nodeList, '--runtime-api', cluster.runtimeApi],
      { ENGRAM_ADMIN_KEY: KEYS.platformAdmin },
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    writing = false;
    await load;

    const report = JSON.parse(moved.trim().split('\n').at(-1)!);
    expect(report).toMatchObject({ from, to, owners: 4, fields: 1 });
    expect(before).toBeGreaterThan(0);
    expect(acknowledged.length).toBeGreaterThan(before);
    expect(readStatuses.length).toBeGreaterThan(0);
    expect(readStatuses.every((status) => status === 200)).toBe(true);
    // Every acknowledged fact is on the new node, through the balancer, which now routes there.
    for (const owner of owners) {
      const res = await fetch(`${cluster.url}/v1/memory/facts?${q(owner)}&limit=1000`, { headers: { authorization: `Bearer ${KEYS.platform}` } });
      expect(res.headers.get('x-engram-node')).toBe(to);
      const held = new Set(((await res.json()) as { facts: Array<{ fact_id: string }> }).facts.map((f) => f.fact_id));
      for (const fact of acknowledged.filter((a) => a.owner === owner)) expect(held.has(fact.fact_id), fact.fact_id).toBe(true);
    }
    // The documents came with their vectors and their field: search and queries answer on the new node.
    const search = await call(cluster.url, 'GET', `/v1/search?${q('u2')}&q=${encodeURIComponent('orchids water')}`);
    expect(search.body.results[0].passage).toContain('orchids of u2');
    expect((await call(cluster.url, 'POST', `/v1/query?partition=${partition}`, { filter: { field: 'priority', op: 'eq', value: 3 } })).body.total).toBe(4);
    // The old node keeps nothing of the scope, and refuses it as another node's.
    expect((await call(cluster.nodes[from]!.url, 'GET', `/v1/memory/facts?${q('u0')}`)).status).toBe(421);
    const leftover = await keyedCall(KEYS.platformAdmin)(cluster.nodes[from]!.url, 'GET', `/v1/admin/scopes/owners?partition=${partition}`);
    expect(leftover.body.owners).toEqual([]);
  });
});
