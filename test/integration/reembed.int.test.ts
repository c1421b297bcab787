import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { REEMBED_PROGRESS_QUERY, type ReembedProgress } from '../../src/jobs/contract.js';
import { runReembedSweep } from '../../src/temporal/reembed-sweep.js';
import { requireTestModel } from '../helpers/model.js';
import { addDocs, expectLexicalWhileForeign, expectSemanticOverAll, MEMORIES, MODEL_ID, search, until } from '../helpers/reembed.js';
import { startTestService } from '../helpers/service.js';

/**
 * Re-embedding through the real service, LMDB and Temporal dev server: a DATA_DIR written with the hashing
 * embedder, opened by a node running the model.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'engram-reembed-'));
const temporalFile = join(dir, 'temporal.yaml');
// Slices report progress every 200 ms, so a short job shows some between its first and last page.
writeFileSync(temporalFile, 'reembed:\n  slice_ms: 200\n');
const model = () => ({ EMBEDDER: 'model', EMBEDDINGS_MODEL_DIR: requireTestModel() });
const withTemporal = (taskQueue: string) => ({ TEMPORAL_ENABLED: 'true', TEMPORAL_ADDRESS: inject('temporalAddress'), TEMPORAL_TASK_QUEUE: taskQueue, TEMPORAL_CONFIG: temporalFile });
const newQueue = () => `reembed-${randomUUID()}`;

let connection: Connection;
let client: Client;
beforeAll(async () => {
  connection = await Connection.connect({ address: inject('temporalAddress') });
  client = new Client({ connection });
});
afterAll(async () => {
  await connection?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Writes each owner's documents on a node running `env`'s embedder, without Temporal, then stops it. */
async function written(dataDir: string, env: Record<string, string>, owners: Record<string, readonly string[]>): Promise<Record<string, string[]>> {
  const svc = await startTestService({ dataDir, env });
  const ids: Record<string, string[]> = {};
  for (const [owner, texts] of Object.entries(owners)) ids[owner] = await addDocs(svc, owner, texts);
  await svc.stop();
  return ids;
}

const runsOf = async (taskQueue: string) => {
  const ids: string[] = [];
  for await (const run of client.workflow.list({ query: `WorkflowType = 'reembedOwner' AND TaskQueue = '${taskQueue}'` })) ids.push(run.workflowId);
  return ids;
};

describe('an owner whose passages the hashing embedder made, on a node running the model', () => {
  it('is re-embedded from its first use, with progress, and then semantic search covers every document', async () => {
    const dataDir = join(dir, 'lazy');
    const ids = await written(dataDir, {}, { lazy: MEMORIES, idle: MEMORIES.slice(0, 3) });
    const taskQueue = newQueue();
    const svc = await startTestService({ dataDir, env: { ...model(), ...withTemporal(taskQueue), REEMBED_PAGE_SIZE: '2' } });
    try {
      // First use: meanwhile the owner's searches are answered by words and say why.
      await expectLexicalWhileForeign(svc, 'lazy');
      const handle = client.workflow.getHandle(`reembed-owner/acme//lazy/${MODEL_ID}`);
      const seen: ReembedProgress[] = [];
      await until(
        async () => {
          const { status } = await handle.describe();
          if (status.name === 'RUNNING') seen.push(await handle.query<ReembedProgress>(REEMBED_PROGRESS_QUERY));
          return status.name;
        },
        (status) => status === 'COMPLETED',
      );
      expect(await handle.result()).toEqual({ reembedded: MEMORIES.length, total: MEMORIES.length });
      // 0/0 while the passages are being counted, then done/total of the owner's 11.
      expect(seen.filter((p) => p.total > 0).every((p) => p.total === MEMORIES.length && p.done <= p.total)).toBe(true);
      expect(seen.every((p) => p.total === 0 || p.total === MEMORIES.length)).toBe(true);
      expect((await handle.describe()).memo).toMatchObject({ job: 'reembed-owner', progress: `${MEMORIES.length}/${MEMORIES.length}`, entity_id: 'lazy' });
      // The owner's index was reopened: no restart needed.
      await expectSemanticOverAll(svc, 'lazy', ids.lazy!);
      // An owner nobody used was left alone (the operator's sweep covers those).
      expect(await runsOf(taskQueue)).toEqual([`reembed-owner/acme//lazy/${MODEL_ID}`]);
      // The recorded history replays against the current workflow code (determinism).
      await Worker.runReplayHistory({ workflowsPath: fileURLToPath(new URL('../../workflows/index.ts', import.meta.url)) }, await handle.fetchHistory(), handle.workflowId);
    } finally {
      await svc.stop();
    }
  });
});

describe('a node running the hashing fallback because the model did not load', () => {
  it('re-embeds nothing: neither on first use nor by the sweep, and the model vectors stay as they were', async () => {
    const dataDir = join(dir, 'fallback');
    const ids = await written(dataDir, model(), { kept: MEMORIES });
    const taskQueue = newQueue();
    const env = { EMBEDDER: 'model', EMBEDDINGS_MODEL_DIR: join(dir, 'absent'), ...withTemporal(taskQueue) };
    const svc = await startTestService({ dataDir, env });
    try {
      expect((await svc.call('GET', '/status', { key: null })).body.embedder.fallback).toMatch(/the hashing embedder runs instead/);
      await search(svc, 'kept', 'green tea');
      const lines: string[] = [];
      await expect(runReembedSweep(loadConfig(env).temporal, loadConfig(env).placement.nodeId, (line) => lines.push(line))).rejects.toThrow(/re-embeds nothing/);
      expect(await runsOf(taskQueue)).toEqual([]);
    } finally {
      await svc.stop();
    }
    // Back on the model, the owner's passages are its own: searched at once, nothing to re-embed.
    const back = await startTestService({ dataDir, env: { ...model(), ...withTemporal(taskQueue) } });
    try {
      await expectSemanticOverAll(back, 'kept', ids.kept!);
    } finally {
      await back.stop();
    }
  });
});

describe('npm run reembed (the operator sweep)', () => {
  it('starts the re-embedding of every owner holding foreign passages, prints progress, and ends once all are done', async () => {
    const dataDir = join(dir, 'sweep');
    const ids = await written(dataDir, {}, { 'swept-1': MEMORIES, 'swept-2': MEMORIES.slice(0, 4) });
    const taskQueue = newQueue();
    const svc = await startTestService({ dataDir, env: { ...model(), ...withTemporal(taskQueue) } });
    try {
      const native = await addDocs(svc, 'native', MEMORIES.slice(0, 2));
      const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/reembed.ts'], {
        cwd: ROOT,
        env: { ...process.env, ...withTemporal(taskQueue) },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout.on('data', (chunk) => (out += String(chunk)));
      child.stderr.on('data', (chunk) => (out += String(chunk)));
      const [code] = (await once(child, 'exit')) as [number | null];
      expect({ code, out }).toMatchObject({ code: 0, out: expect.stringContaining('2 owners hold passages of another embedder') });
      expect(out.trim().split('\n').at(-1)).toBe(`re-embedding 2 owners: 0 running, 2 complete, 0 failed; ${MEMORIES.length + 4}/${MEMORIES.length + 4} passages`);
      expect((await runsOf(taskQueue)).sort()).toEqual([`reembed-owner/acme//swept-1/${MODEL_ID}`, `reembed-owner/acme//swept-2/${MODEL_ID}`]);
      await expectSemanticOverAll(svc, 'swept-1', ids['swept-1']!);
      await expectSemanticOverAll(svc, 'swept-2', ids['swept-2']!);
      await expectSemanticOverAll(svc, 'native', native);
    } finally {
      await svc.stop();
    }
  }, 120_000);
});
