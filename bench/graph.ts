/**
 * The graph route (issue 15), over HTTP against the service as `npm start` runs it (Temporal off), on one
 * owner imported in one request:
 * - below the caps: a hub with 10,000 edges (to and from 5,000 leaves: 5,001 nodes, 10,000 edges);
 *   `GET /v1/memory/graph` from the hub at depth 1, and from a leaf at depth 2 (the same neighbourhood,
 *   reached through the hub), then with `include_facts` (one fact per leaf);
 * - past the caps: a hub with 12,000 leaves, whose neighbourhood exceeds 10,000 nodes: the 400 it answers.
 * Also: how long a one-node read waits while such neighbourhoods are being answered (the walk pauses
 * every 1,000 edges so that other requests are served), beside the same read on a quiet service.
 * Baselines, in the same run: the same records read from a raw LMDB environment (lmdb-js, msgpack, no
 * encryption, no HTTP) in the walk's own pattern (the hub's endpoint index and each edge record once, each
 * leaf, then each leaf's endpoint index), and the list route walking the hub's 10,000 edges in pages of 1,000.
 * Run: `npm run bench:graph -- [rounds]` (builds first).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { open } from 'lmdb';
import { spawnEngram } from './lib/processes.js';

const KEY = 'sk_bench_graph_0123456789abcdef';
const LEAVES = 5_000;
const PAST_CAP_LEAVES = 12_000;
const T0 = Date.UTC(2026, 0, 1);

type Line = { type: 'entity' | 'relationship' | 'fact'; record: Record<string, unknown> };

const at = (ms: number) => new Date(ms).toISOString();
const entity = (id: string, type: string): Line => ({
  type: 'entity',
  record: { memory_entity_id: id, entity_id: 'x', partition: null, entity_type: type, display_name: id, aliases: [], attributes: {}, created_at: at(T0), updated_at: at(T0) },
});
const edge = (id: string, from: string, to: string, type: string, i: number): Line => ({
  type: 'relationship',
  record: {
    relationship_id: id, entity_id: 'x', partition: null, from_entity_id: from, to_entity_id: to, relationship_type: type, attributes: { weight: i % 10 },
    valid_from: null, observed_at: at(T0 + i), invalid_from: null, created_at: at(T0 + i), updated_at: at(T0 + i),
  },
});
const fact = (id: string, subject: string, i: number): Line => ({
  type: 'fact',
  record: {
    fact_id: id, entity_id: 'x', partition: null, subject_type: 'entity', subject_id: subject, predicate: 'city', value: `city ${i % 100}`, cardinality: 'single',
    valid_from: null, observed_at: at(T0 + i), invalid_from: null, supersedes_fact_id: null, created_at: at(T0 + i), updated_at: at(T0 + i),
  },
});

/** The hub H with 2 edges to each leaf (out and back) and a fact per leaf; `leaves` leaves. */
function hubOwner(leaves: number): Line[] {
  const lines: Line[] = [entity('H', 'hub')];
  for (let i = 0; i < leaves; i++) lines.push(entity(`L${i}`, 'leaf'));
  for (let i = 0; i < leaves; i++) lines.push(edge(`rel_o${i}`, 'H', `L${i}`, 'knows', 2 * i), edge(`rel_b${i}`, `L${i}`, 'H', 'follows', 2 * i + 1));
  for (let i = 0; i < leaves; i++) lines.push(fact(`fact_${i}`, `L${i}`, i));
  return lines;
}

async function main(): Promise<void> {
  const rounds = Number(process.argv[2] ?? 20);
  const dir = mkdtempSync(join(tmpdir(), 'engram-bench-graph-'));
  const engram = await spawnEngram(join(dir, 'data'), KEY, dir);
  const request = async (method: string, path: string, body?: string) => {
    const res = await fetch(`${engram.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${KEY}`, ...(body === undefined ? {} : { 'content-type': 'application/x-ndjson' }) },
      body,
    });
    return { status: res.status, json: (await res.json()) as Record<string, unknown> };
  };
  try {
    const below = hubOwner(LEAVES);
    for (const [owner, lines] of [['below', below], ['past', hubOwner(PAST_CAP_LEAVES)]] as const) {
      const imported = await request('POST', `/v1/memory/import?entity_id=${owner}`, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
      if (imported.status !== 200) throw new Error(`import ${owner}: ${imported.status} ${JSON.stringify(imported.json)}`);
    }
    const raw = rawBaseline(dir, below);

    const time = async (path: string, expectStatus: number, check: (json: Record<string, unknown>) => void) => {
      const once = async () => {
        const t = performance.now();
        const res = await request('GET', path);
        const ms = performance.now() - t;
        if (res.status !== expectStatus) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.json).slice(0, 300)}`);
        check(res.json);
        return ms;
      };
      await once();
      return median(await sequential(rounds, once));
    };
    const nodesEdges = (nodes: number, edges: number, facts?: number) => (json: Record<string, unknown>) => {
      const got = [(json.nodes as unknown[]).length, (json.edges as unknown[]).length, (json.facts as unknown[] | undefined)?.length];
      if (got[0] !== nodes || got[1] !== edges || got[2] !== facts) throw new Error(`expected ${nodes} nodes, ${edges} edges, ${facts} facts; got ${got.join(', ')}`);
    };
    const hub = await time('/v1/memory/graph?entity_id=below&memory_entity_id=H', 200, nodesEdges(LEAVES + 1, 2 * LEAVES));
    const leaf = await time('/v1/memory/graph?entity_id=below&memory_entity_id=L7&depth=2', 200, nodesEdges(LEAVES + 1, 2 * LEAVES));
    const facts = await time('/v1/memory/graph?entity_id=below&memory_entity_id=H&include_facts=true', 200, nodesEdges(LEAVES + 1, 2 * LEAVES, LEAVES));
    const past = await time('/v1/memory/graph?entity_id=past&memory_entity_id=H', 400, (json) => {
      if (!String(json.error).includes('GRAPH_MAX_NODES')) throw new Error(`the 400 does not name the cap: ${json.error}`);
    });
    const listMs = median(
      await sequential(rounds, async () => {
        const t = performance.now();
        let cursor: string | null = null;
        let seen = 0;
        for (const side of ['from_entity_id', 'to_entity_id']) {
          do {
            const res = await request('GET', `/v1/memory/relationships?entity_id=below&${side}=H&limit=1000${cursor ? `&cursor=${cursor}` : ''}`);
            seen += (res.json.relationships as unknown[]).length;
            cursor = res.json.next_cursor as string | null;
          } while (cursor);
        }
        if (seen !== 2 * LEAVES) throw new Error(`the list walk saw ${seen} edges`);
        return performance.now() - t;
      }),
    );
    // Other requests meanwhile: the longest a one-node read waits while hub neighbourhoods are being answered.
    let busy = true;
    const graphs = sequential(5, async () => {
      await request('GET', '/v1/memory/graph?entity_id=below&memory_entity_id=H&include_facts=true');
      return 0;
    }).finally(() => (busy = false));
    const pings: number[] = [];
    while (busy) {
      const t = performance.now();
      await request('GET', '/v1/memory/entities/L1?entity_id=below');
      pings.push(performance.now() - t);
    }
    await graphs;
    const quiet = median(await sequential(50, async () => {
      const t = performance.now();
      await request('GET', '/v1/memory/entities/L1?entity_id=below');
      return performance.now() - t;
    }));
    const rawMs = median(await sequential(rounds, async () => raw.walk()));
    console.log(`graph route, median of ${rounds} (node with ${2 * LEAVES} edges, ${LEAVES + 1} nodes; caps 10,000 nodes / 50,000 edges):`);
    console.log(`  raw LMDB reads of the same walk: ${rawMs.toFixed(1)} ms; list route over the hub's ${2 * LEAVES} edges (pages of 1000): ${listMs.toFixed(1)} ms`);
    const row = (name: string, ms: number) => console.log(`  ${name}: ${ms.toFixed(1)} ms, ${(ms / rawMs).toFixed(1)}x raw LMDB, ${(ms / listMs).toFixed(2)}x the list walk`);
    row('hub, depth 1', hub);
    row('leaf, depth 2 (through the hub)', leaf);
    row('hub, depth 1, include_facts', facts);
    row(`past the node cap (${PAST_CAP_LEAVES} leaves): 400`, past);
    console.log(
      `  a one-node read while 5 hub neighbourhoods (with facts) are answered: median ${median(pings).toFixed(1)} ms, max ${Math.max(...pings).toFixed(1)} ms ` +
        `over ${pings.length} reads; the same read on a quiet service: ${quiet.toFixed(1)} ms`,
    );
    await raw.close();
  } finally {
    await engram.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The same records in a raw lmdb-js environment (msgpack values, array keys, no encryption), read in the
 * walk's pattern: the hub's endpoint index and its edges, each leaf, then each leaf's endpoint index (its
 * edges are known by then, so no record is opened twice).
 */
function rawBaseline(dir: string, lines: Line[]) {
  const db = open({ path: join(dir, 'raw'), compression: false });
  const s = ['bench', '', 'below'];
  db.transactionSync(() => {
    for (const { type, record } of lines) {
      if (type === 'entity') void db.put([...s, 'ent', record.memory_entity_id as string], record);
      if (type === 'relationship') {
        const id = record.relationship_id as string;
        void db.put([...s, 'rel', id], record);
        void db.put([...s, 'r_from', record.from_entity_id as string, record.observed_at as string, id], true);
        void db.put([...s, 'r_to', record.to_entity_id as string, record.observed_at as string, id], true);
      }
    }
  });
  // The edges of a node not read before: ids from the endpoint index, each record opened once.
  const edgesOf = (node: string, known: Set<string>) => {
    const out: Record<string, unknown>[] = [];
    for (const side of ['r_from', 'r_to']) {
      for (const key of db.getKeys({ start: [...s, side, node], end: [...s, side, node, '\uffff'] })) {
        const id = (key as string[]).at(-1)!;
        if (known.has(id)) continue;
        known.add(id);
        out.push(db.get([...s, 'rel', id]) as Record<string, unknown>);
      }
    }
    return out;
  };
  return {
    walk(): number {
      const t = performance.now();
      const seen = new Set<string>();
      const known = new Set<string>();
      for (const e of edgesOf('H', known)) {
        const leaf = e.from_entity_id === 'H' ? (e.to_entity_id as string) : (e.from_entity_id as string);
        if (!seen.has(leaf)) {
          seen.add(leaf);
          db.get([...s, 'ent', leaf]);
        }
      }
      for (const leaf of seen) edgesOf(leaf, known);
      if (seen.size !== LEAVES) throw new Error(`raw walk reached ${seen.size} leaves`);
      return performance.now() - t;
    },
    close: () => db.close(),
  };
}

async function sequential(n: number, task: () => Promise<number> | number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push(await task());
  return out;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

await main();
