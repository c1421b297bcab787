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
 * - the same assertions one per request (`POST /v1/memory/facts`), 16 in flight.
 * Run: `npm run bench:batch -- [seconds]` (builds first).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { open } from 'lmdb';
import { spawnEngram } from './lib/processes.js';

const KEY = 'sk_bench_batch_0123456789abcdef';
const SECONDS = Number(process.argv[2] ?? 10);
const IN_FLIGHT = 16;
const OWNERS = 50;
const PER_BATCH = 100;
const PREDICATES = 20;

const assertion = (i: number) => ({ predicate: `p${i % PREDICATES}`, value: `value-${i}` });

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
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${engram.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${path}: ${res.status} ${text.slice(0, 300)}`);
  };
  const db = open({ path: join(dir, 'raw'), compression: false });
  try {
    const batchBody = { operations: Array.from({ length: PER_BATCH }, (_, i) => ({ op: 'assert_fact', ...assertion(i) })) };
    const owner = (worker: number, round: number) => `o${(worker * 7 + round) % OWNERS}`;
    // Warm-up: every owner exists and its facts are loaded.
    await rate(2, async (w, r) => (await post(`/v1/memory/batch?entity_id=${owner(w, r)}`, batchBody), PER_BATCH));

    const batched = await rate(SECONDS, async (w, r) => (await post(`/v1/memory/batch?entity_id=${owner(w, r)}`, batchBody), PER_BATCH));
    const single = await rate(SECONDS, async (w, r) => (await post(`/v1/memory/facts?entity_id=${owner(w, r)}`, assertion(r)), 1));

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
    console.log(`  POST /v1/memory/batch, ${PER_BATCH} per request: ${batched.toFixed(0)} facts/s, ${(batched / raw).toFixed(2)}x the floor`);
    console.log(`  POST /v1/memory/facts, one per request: ${single.toFixed(0)} facts/s, ${(single / raw).toFixed(3)}x the floor; the batch is ${(batched / single).toFixed(1)}x it`);
  } finally {
    await db.close();
    await engram.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
