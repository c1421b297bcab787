/**
 * Cursor paging of the memory lists and name lookup (issue 14), over HTTP against the service as
 * `npm start` runs it (built JavaScript, plain node, Temporal off). One owner holds N facts, N entities and
 * N relationships (default 50,000 each); each list is walked page by page (limit 1000, `cursor` =
 * `next_cursor`), and beside it, in the same run, the baseline: as many requests for the FIRST page of the
 * same list (what a page costs where no position has to be found). A ratio near 1 means a page deep in
 * the list costs what the first one does: no page pays for the records before it.
 * Name lookup: 1000 lookups by name (`?name=`, each finding one node among N) beside 1000 reads of a node by
 * id and 1000 one-record pages of the type list (the same route and envelope, without a name).
 * Run: `npm run bench:paging -- [records]` (builds first).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { spawnEngram } from './lib/processes.js';

const KEY = 'sk_bench_paging_0123456789abcdef';
const LIMIT = 1000;
const CONCURRENCY = 64;
const LOOKUPS = 1000;

async function main(): Promise<void> {
  const records = Number(process.argv[2] ?? 50_000);
  const dir = mkdtempSync(join(tmpdir(), 'engram-bench-paging-'));
  const engram = await spawnEngram(join(dir, 'data'), KEY, dir);
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${engram.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${KEY}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await res.json()) as Record<string, unknown>;
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  try {
    const q = '?entity_id=big';
    let t = performance.now();
    await inParallel(records, (i) => call('POST', `/v1/memory/entities${q}`, { entity_type: 'person', memory_entity_id: `p${i}`, display_name: `Person ${i}` }));
    await inParallel(records, (i) => call('POST', `/v1/memory/relationships${q}`, { from_entity_id: `p${i % 100}`, to_entity_id: `p${(i + 1) % 100}`, relationship_type: 'knows' }));
    const base = Date.UTC(2025, 0, 1);
    await inParallel(records, (i) => call('POST', `/v1/memory/facts${q}`, { predicate: `p${i % 50}`, value: i, cardinality: 'multi', observed_at: new Date(base + Math.floor(i / 3) * 1000).toISOString() }));
    console.log(`filled ${records} entities, relationships and facts in ${((performance.now() - t) / 1000).toFixed(1)} s`);

    for (const list of ['facts', 'relationships', 'entities'] as const) {
      const path = `/v1/memory/${list}${q}&limit=${LIMIT}`;
      // Warm-up: loads the owner's facts into memory, and the pages into the OS cache.
      await walk(call, path, list);
      t = performance.now();
      const { pages, seen, lastPageMs } = await walk(call, path, list);
      const walkMs = performance.now() - t;
      if (seen !== records) throw new Error(`${list}: walked ${seen} records, not ${records}`);
      t = performance.now();
      let firstPageMs = 0;
      for (let i = 0; i < pages; i++) {
        const start = performance.now();
        await call('GET', path);
        firstPageMs = performance.now() - start;
      }
      const baselineMs = performance.now() - t;
      console.log(
        `${list}: walk of ${records} in ${pages} pages ${walkMs.toFixed(0)} ms (${(walkMs / pages).toFixed(1)} ms/page, last page ${lastPageMs.toFixed(1)} ms); ` +
          `${pages} first pages ${baselineMs.toFixed(0)} ms (${(baselineMs / pages).toFixed(1)} ms/page, last ${firstPageMs.toFixed(1)} ms); ratio ${(walkMs / baselineMs).toFixed(2)}`,
      );
    }

    const ids = Array.from({ length: LOOKUPS }, (_, i) => Math.floor((i * records) / LOOKUPS));
    await call('GET', `/v1/memory/entities${q}&name=person%200`);
    t = performance.now();
    for (const i of ids) {
      const found = await call('GET', `/v1/memory/entities${q}&name=${encodeURIComponent(`PERSON ${i}`)}`);
      if ((found.entities as unknown[]).length !== 1) throw new Error(`name lookup of Person ${i} found ${(found.entities as unknown[]).length}`);
    }
    const byName = performance.now() - t;
    t = performance.now();
    for (const i of ids) await call('GET', `/v1/memory/entities/p${i}${q}`);
    const byId = performance.now() - t;
    t = performance.now();
    for (let i = 0; i < LOOKUPS; i++) await call('GET', `/v1/memory/entities${q}&entity_type=person&limit=1`);
    const listOne = performance.now() - t;
    const us = (ms: number) => `${((ms / LOOKUPS) * 1000).toFixed(0)} µs`;
    console.log(
      `name lookup among ${records}: ${us(byName)} each; get by id ${us(byId)} (ratio ${(byName / byId).toFixed(2)}); ` +
        `a one-record page of the type list ${us(listOne)} (ratio ${(byName / listOne).toFixed(2)})`,
    );
  } finally {
    await engram.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

type Call = (method: string, path: string) => Promise<Record<string, unknown>>;

async function walk(call: Call, path: string, list: string): Promise<{ pages: number; seen: number; lastPageMs: number }> {
  let cursor: string | null = null;
  let pages = 0;
  let seen = 0;
  for (;;) {
    const start = performance.now();
    const page = await call('GET', cursor === null ? path : `${path}&cursor=${encodeURIComponent(cursor)}`);
    const ms = performance.now() - start;
    seen += (page[list] as unknown[]).length;
    cursor = page.next_cursor as string | null;
    pages++;
    if (cursor === null) return { pages, seen, lastPageMs: ms };
  }
}

async function inParallel(n: number, task: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < n) await task(next++);
    }),
  );
}

await main();
