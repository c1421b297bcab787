import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { historyFromJSON, historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';

const WORKFLOWS = fileURLToPath(new URL('../../workflows/index.ts', import.meta.url));
let svc: TestService;
let connection: Connection;
let recordedJson: string;
let workflowId: string;

/**
 * Records a real consolidation history from the dev server (through the HTTP route), then replays it
 * against the current workflow code: a change that breaks determinism fails here.
 */
beforeAll(async () => {
  // The changed-workflow case makes the core warn about non-determinism on purpose; keep it off stderr.
  Runtime.install({ logger: new DefaultLogger('ERROR'), telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' }, forward: {} } } });
  svc = await startTestService({
    env: { TEMPORAL_ENABLED: 'true', TEMPORAL_ADDRESS: inject('temporalAddress'), TEMPORAL_TASK_QUEUE: `replay-${randomUUID()}` },
  });
  connection = await Connection.connect({ address: inject('temporalAddress') });
  const owner = `replay-${randomUUID()}`;
  for (const value of ['a', 'A', 'b']) {
    await svc.call('POST', `/v1/memory/facts?entity_id=${owner}`, { body: { predicate: 'p', value, cardinality: 'multi' } });
  }
  const res = await svc.call('POST', `/v1/memory/consolidate?entity_id=${owner}`);
  expect(res.body).toEqual({ active_facts_before: 3, active_facts_after: 2, retracted: 1 });
  workflowId = `consolidate/acme//${owner}`;
  const history = await new Client({ connection }).workflow.getHandle(workflowId).fetchHistory();
  // Through JSON, as histories exported from the UI or CLI are: this is where mixed protobufjs copies break.
  recordedJson = historyToJSON(history);
});

afterAll(async () => {
  await connection?.close();
  await svc?.stop();
});

describe('consolidate workflow replay', () => {
  it('runs on one protobufjs copy shared by every SDK package (histories from JSON break with several)', () => {
    const root = createRequire(import.meta.url);
    const protobufjsOf = (pkg: string) => {
      const path = createRequire(root.resolve(pkg)).resolve('protobufjs/package.json');
      return `${path}@${(root(path) as { version: string }).version}`;
    };
    const copies = new Set(['@temporalio/common', '@temporalio/proto', '@temporalio/worker', '@temporalio/client'].map(protobufjsOf));
    expect([...copies]).toHaveLength(1);
    expect([...copies][0]).toMatch(/@8\./);
  });

  it('replays a recorded history with the current workflow code', async () => {
    expect(JSON.parse(recordedJson).events.length).toBeGreaterThan(5);
    await expect(Worker.runReplayHistory({ workflowsPath: WORKFLOWS }, historyFromJSON(JSON.parse(recordedJson)), workflowId)).resolves.toBeUndefined();
  });

  it('fails the replay when the workflow code changes its commands', async () => {
    // A variant that inserts a timer before the activity: the recorded history no longer matches it.
    const dir = fileURLToPath(new URL('../../node_modules/.cache/engram-replay-test/', import.meta.url));
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const variant = `${dir}changed-workflow.js`; // plain JS: the bundler does not transpile TS under node_modules
    writeFileSync(
      variant,
      `import { proxyActivities, sleep } from '@temporalio/workflow';
export async function consolidate(input) {
  await sleep(10);
  const { consolidateOwner } = proxyActivities({ startToCloseTimeout: 1000 });
  return consolidateOwner(input.owner);
}
`,
    );
    await expect(Worker.runReplayHistory({ workflowsPath: variant }, historyFromJSON(JSON.parse(recordedJson)), workflowId)).rejects.toThrow(
      /nondetermin/i,
    );
  });
});
