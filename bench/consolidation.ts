/**
 * Consolidation of one owner with 10,000 active facts (30% redundant), three ways on identical data:
 *   pure     planConsolidation alone over the facts in memory (the raw baseline)
 *   actor    the owner actor's command: LMDB read of the active facts, plan, retractions committed
 *   workflow the consolidate job through Temporal (start, workflow task, activity = the actor command, result)
 * Prints medians and ratios to the pure baseline (and workflow to actor, the orchestration overhead).
 * Run: `npx tsx bench/consolidation.ts [runs]`. Uses TEMPORAL_ADDRESS when set, else a private
 * in-memory dev server (the CLI found as the service finds it).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KeyRing } from '../src/auth/keys.js';
import { loadConfig } from '../src/config.js';
import { planConsolidation } from '../src/domain/consolidation.js';
import type { Fact } from '../src/domain/facts.js';
import type { Scope } from '../src/domain/scope.js';
import { createLogger } from '../src/log.js';
import { startService } from '../src/server.js';
import { benchTemporal } from './lib/temporal.js';

const RUNS = Number(process.argv[2] ?? 5);
const FACTS = 10_000;
const REDUNDANT = 0.3;
const T0 = Date.UTC(2026, 0, 1);
const KEY = 'sk_bench_consolidation_0123456789';

/** 7,000 distinct statements plus 3,000 restatements differing only in case and spacing. */
function ownerFacts(scope: Scope): Fact[] {
  const distinct = Math.round(FACTS * (1 - REDUNDANT));
  const facts: Fact[] = [];
  for (let i = 0; i < FACTS; i++) {
    const n = i < distinct ? i : (i * 7919) % distinct;
    const value = i < distinct ? `value number ${n}` : `  VALUE   Number ${n} `;
    const at = T0 + i * 1000;
    facts.push({
      fact_id: `fact_${String(i).padStart(8, '0')}`,
      entity_id: scope.entityId,
      partition: scope.partition,
      subject_type: 'owner',
      subject_id: null,
      predicate: `predicate_${n % 500}`,
      value,
      cardinality: 'multi',
      valid_from: null,
      observed_at: at,
      invalid_from: null,
      supersedes_fact_id: null,
      created_at: at,
      updated_at: at,
    });
  }
  return facts;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function main(): Promise<void> {
  const temporal = await benchTemporal();
  const address = temporal.address;
  const dataDir = mkdtempSync(join(tmpdir(), 'engram-bench-consolidation-'));
  const config = loadConfig({ DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'silent', TEMPORAL_ENABLED: 'true', TEMPORAL_ADDRESS: address, TEMPORAL_TASK_QUEUE: `bench-${process.pid}` });
  const service = await startService(config, { keys: KeyRing.fromKeys([{ key: KEY, tenant: 'bench', principal: 'bench' }]), log: createLogger('silent') });
  await service.jobsStarted; // Temporal starts in the background; the benchmark needs it
  const { store, graph, actors, jobs } = service.deps;

  let owners = 0;
  /** A fresh owner holding the same 10,000 facts (written in one transaction, not timed). */
  const freshOwner = async (): Promise<Scope> => {
    const scope: Scope = { tenant: 'bench', partition: null, entityId: `owner-${owners++}` };
    const facts = ownerFacts(scope);
    await store.transaction(() => {
      for (const fact of facts) graph.putFact(scope, fact);
    });
    return scope;
  };

  try {
    const sample = ownerFacts({ tenant: 'bench', partition: null, entityId: 'sample' });
    const expected = planConsolidation({ facts: sample, activeRelationshipIds: new Set() }).report;
    const pure: number[] = [];
    for (let i = 0; i < RUNS * 4; i++) {
      const start = performance.now();
      planConsolidation({ facts: sample, activeRelationshipIds: new Set() });
      pure.push(performance.now() - start);
    }

    const actor: number[] = [];
    const workflow: number[] = [];
    await jobs.consolidate(await freshOwner()); // warm-up: first workflow task, activity worker, LMDB pages
    // Alternating which path goes first keeps write-back of the previous owner from favouring one path.
    for (let i = 0; i < RUNS * 2; i++) {
      const viaWorkflowFirst = i % 2 === 1;
      for (const path of viaWorkflowFirst ? (['workflow', 'actor'] as const) : (['actor', 'workflow'] as const)) {
        const owner = await freshOwner();
        const start = performance.now();
        const report = path === 'actor' ? await actors.actorFor(owner).consolidate() : await jobs.consolidate(owner);
        (path === 'actor' ? actor : workflow).push(performance.now() - start);
        if (JSON.stringify(report) !== JSON.stringify(expected)) throw new Error(`unexpected report ${JSON.stringify(report)}`);
      }
    }

    // An owner with no facts, as most consolidation requests find one: what orchestration alone costs.
    const emptyActor: number[] = [];
    const emptyWorkflow: number[] = [];
    const emptyRoute: number[] = [];
    for (let i = 0; i < RUNS * 4; i++) {
      const timed = async (into: number[], run: (owner: Scope) => Promise<unknown>) => {
        const owner: Scope = { tenant: 'bench', partition: null, entityId: `empty-${owners++}` };
        const start = performance.now();
        await run(owner);
        into.push(performance.now() - start);
      };
      await timed(emptyActor, (owner) => actors.actorFor(owner).consolidate());
      await timed(emptyWorkflow, (owner) => jobs.consolidate(owner));
      await timed(emptyRoute, async (owner) => {
        const res = await fetch(`${service.url}/v1/memory/consolidate?entity_id=${owner.entityId}`, { method: 'POST', headers: { authorization: `Bearer ${KEY}` } });
        if (res.status !== 200) throw new Error(`consolidate answered ${res.status}: ${await res.text()}`);
      });
    }

    const p = median(pure);
    const a = median(actor);
    const w = median(workflow);
    console.log(`\nconsolidation: ${FACTS} active facts, ${REDUNDANT * 100}% redundant (report ${JSON.stringify(expected)}), median of ${RUNS * 2} runs per path (pure: ${RUNS * 4})`);
    console.log('| path | median ms | ratio to pure function |');
    console.log('|---|---|---|');
    console.log(`| pure function (baseline) | ${p.toFixed(2)} | 1.00 |`);
    console.log(`| actor command (LMDB read + plan + retractions) | ${a.toFixed(2)} | ${(a / p).toFixed(2)} |`);
    console.log(`| workflow via Temporal (HTTP route's path) | ${w.toFixed(2)} | ${(w / p).toFixed(2)} |`);
    console.log(`\norchestration overhead: workflow / actor = ${(w / a).toFixed(2)} (+${(w - a).toFixed(1)} ms per run)`);
    const [ea, ew, er] = [median(emptyActor), median(emptyWorkflow), median(emptyRoute)];
    console.log(`\nan owner with no facts, medians of ${RUNS * 4} runs per path:`);
    console.log('| path | median ms | ratio to the actor command | above the actor command |');
    console.log('|---|---|---|---|');
    console.log(`| actor command (baseline) | ${ea.toFixed(2)} | 1.00 | - |`);
    console.log(`| workflow via Temporal | ${ew.toFixed(2)} | ${(ew / ea).toFixed(1)} | +${(ew - ea).toFixed(1)} ms |`);
    console.log(`| POST /v1/memory/consolidate (HTTP, the route's whole path) | ${er.toFixed(2)} | ${(er / ea).toFixed(1)} | +${(er - ea).toFixed(1)} ms (target: p50 ≤ 40 ms) |`);
    // The runs one by one, in order: the spread has been bimodal (~35 ms, ~100 ms), which a median hides.
    console.log(`runs, ms: workflow ${emptyWorkflow.map(Math.round).join(' ')}; route ${emptyRoute.map(Math.round).join(' ')}`);
  } finally {
    await service.close();
    await temporal.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
