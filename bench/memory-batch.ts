/**
 * Bulk fact assertions (issue 16): `POST /v1/memory/batch` with 100 assertions per request, over HTTP
 * against the service as `npm start` runs it (Temporal off, content encryption on, STORE_SYNC=full),
 * 16 requests in flight over 50 owners; each batch asserts 20 single predicates 5 times, so 80 of its 100
 * assertions supersede one before them (the supersession rules at work, not plain appends).
 * Beside it, in the same run:
 * - the storage floor: a raw lmdb-js environment (msgpack, no encryption, no HTTP) taking the same
 *   records as the service writes them (each new fact's record, closed already when a later assertion of
 *   the same batch supersedes it; a state record for each fact of an earlier batch it supersedes), 100
 *   assertions per transaction, 16 transactions in flight;
 * - the same assertions one per request (`POST /v1/memory/facts`), 16 in flight;
 * - a history import: batches of 1,000 assertions (the most a batch takes) of one predicate, each
 *   superseding the one before it, 16 in flight over the same owners.
 * The requests are sent by autocannon, as bench:facts sends its own, and the client's CPU per fact is
 * printed beside the service's: the client shares the machine's two cores with the service. Until
 * 2026-12-02 they were sent with `fetch`, which cost ~10 µs of the client's CPU per fact against the
 * service's ~25 (bodies serialised anew, responses read through web streams), and kept ~0.4 of a core
 * from the service; the figures from before then are lower for it.
 * Run: `npm run bench:batch -- [seconds]` (builds first).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { open } from 'lmdb';
import { batchBody, historyBody, PREDICATES } from './lib/fact-stream.js';
import { postLoad } from './lib/post-load.js';
import { spawnEngram, type BenchService } from './lib/processes.js';

const KEY = 'sk_bench_batch_0123456789abcdef';
const SECONDS = Number(process.argv[2] ?? 10);
const IN_FLIGHT = 16;
const OWNERS = 50;
const PER_BATCH = 100;
const HISTORY_BATCH = 1000;

const assertion = (i: number) => ({ predicate: `p${i % PREDICATES}`, value: `value-${i}` });

interface HttpRate {
  /** Facts asserted per second. */
  facts: number;
  /** CPU per fact: the service's (every thread) and the load generator's (this process). */
  serviceUs: number;
  clientUs: number;
  p99: number;
}

/** POSTs `request(n)` for `seconds`, IN_FLIGHT at a time, each asserting `perRequest` facts; every request must succeed. */
async function httpRate(engram: BenchService, seconds: number, perRequest: number, request: (n: number) => { path: string; body: string }): Promise<HttpRate> {
  const load = await postLoad(engram, KEY, IN_FLIGHT, seconds, request);
  if (load.errors > 0) throw new Error(`${load.errors} requests failed`);
  return { facts: load.rps * perRequest, serviceUs: load.serviceUs / perRequest, clientUs: load.clientUs / perRequest, p99: load.p99 };
}

/** Runs `task` with IN_FLIGHT callers for `seconds`; returns how many units the tasks reported per second. */
async function rate(seconds: number, task: (worker: number, round: number) => Promise<number>): Promise<number> {
  const end = performance.now() + seconds * 1000;
  let units = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async (_, worker) => {
      for (let round = 0; performance.now() < end; round++) {
        // Awaited first: `units += await …` would read `units` before the wait and lose the other workers' counts.
        const done = await task(worker, round);
        units += done;
      }
    }),
  );
  return units / ((performance.now() - start) / 1000);
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'engram-bench-batch-'));
  const engram = await spawnEngram(join(dir, 'data'), KEY, dir);
  const db = open({ path: join(dir, 'raw'), compression: false });
  try {
    const body = batchBody(PER_BATCH);
    const batch = (n: number) => ({ path: `/v1/memory/batch?entity_id=o${n % OWNERS}`, body });
    // Warm-up: every owner exists and its facts are loaded.
    await httpRate(engram, 2, PER_BATCH, batch);

    const batched = await httpRate(engram, SECONDS, PER_BATCH, batch);
    const historyRequest = historyBody(HISTORY_BATCH);
    const history = await httpRate(engram, SECONDS, HISTORY_BATCH, (n) => ({ path: `/v1/memory/batch?entity_id=o${n % OWNERS}`, body: historyRequest }));
    const single = await httpRate(engram, SECONDS, 1, (n) => ({ path: `/v1/memory/facts?entity_id=o${n % OWNERS}`, body: JSON.stringify(assertion(n)) }));

    let next = 0;
    const raw = await rate(SECONDS, async (w) => {
      const scope = ['bench', '', `o${w % OWNERS}`];
      await db.transaction(() => {
        for (let i = 0; i < PER_BATCH; i++) {
          const id = `fact_${String(next++).padStart(26, '0')}`;
          const at = Date.now();
          // Superseded later in the same batch: stored closed (the service stores each fact once per batch).
          const closed = i + PREDICATES < PER_BATCH;
          void db.put([...scope, 'fact', id], {
            fact_id: id, entity_id: scope[2], partition: null, subject_type: 'owner', subject_id: null, ...assertion(i), cardinality: 'single',
            valid_from: null, observed_at: at, invalid_from: closed ? at : null, supersedes_fact_id: null, created_at: at, updated_at: at,
          });
          // The first assertion of each predicate supersedes the previous batch's last one: its state record.
          if (i < PREDICATES) void db.put([...scope, 'fst', `fact_${String(next - PREDICATES - 1).padStart(26, '0')}`], { invalid_from: at, updated_at: at });
        }
      });
      return PER_BATCH;
    });

    console.log(`fact assertions, ${IN_FLIGHT} in flight over ${OWNERS} owners, ${SECONDS} s each (80% supersede an earlier one):`);
    console.log(`  raw LMDB, ${PER_BATCH} per transaction (storage floor): ${raw.toFixed(0)} facts/s`);
    const cpu = (r: HttpRate) => `${r.serviceUs.toFixed(1)} µs of the service's CPU per fact (the client's ${r.clientUs.toFixed(1)}), p99 ${r.p99} ms`;
    console.log(`  POST /v1/memory/batch, ${PER_BATCH} per request: ${batched.facts.toFixed(0)} facts/s, ${(batched.facts / raw).toFixed(2)}x the floor; ${cpu(batched)}`);
    console.log(`  POST /v1/memory/batch, one predicate's history, ${HISTORY_BATCH} per request: ${history.facts.toFixed(0)} facts/s, ${(history.facts / raw).toFixed(2)}x the floor; ${cpu(history)}`);
    console.log(`  POST /v1/memory/facts, one per request: ${single.facts.toFixed(0)} facts/s, ${(single.facts / raw).toFixed(3)}x the floor; ${cpu(single)}; the batch is ${(batched.facts / single.facts).toFixed(1)}x it`);
  } finally {
    await db.close();
    await engram.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
