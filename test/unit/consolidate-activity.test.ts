import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createConsolidateActivities } from '../../activities/consolidate.js';
import { withAppFailures } from '../../activities/failures.js';
import type { ActorRegistry } from '../../src/actors/registry.js';
import type { ManualClock } from '../../src/clock.js';
import type { Scope } from '../../src/domain/scope.js';
import { AppError, ERROR_CODES, notFound, STATUS_BY_CODE, unavailable } from '../../src/errors.js';
import { createLogger } from '../../src/log.js';
import { NodePlacement } from '../../src/placement/node-placement.js';
import { PlacementMap } from '../../src/placement/placement-map.js';
import { hostingQueues } from '../../src/temporal/queues.js';
import { activityOptions } from '../../workflows/policy.js';
import type { GraphStore } from '../../src/store/graph.js';
import { openTempGraph, type TempGraph } from '../helpers/graph.js';

const quiet = { logger: new DefaultLogger('WARN') };
const owner: Scope = { tenant: 'acme', partition: null, entityId: 'user-1' };
const other: Scope = { tenant: 'acme', partition: null, entityId: 'user-2' };

describe('consolidateOwner activity', () => {
  let temp: TempGraph;
  let graph: GraphStore;
  let actors: ActorRegistry;
  let clock: ManualClock;

  beforeEach(() => {
    temp = openTempGraph('engram-activity-');
    ({ graph, actors, clock } = temp);
  });

  afterEach(() => temp.close());

  const assert = (scope: Scope, id: string, value: string) => {
    clock.advance(1000);
    return actors.actorFor(scope).assertFact({ fact_id: id, subject_type: 'owner', subject_id: null, predicate: 'likes', value, cardinality: 'multi', valid_from: null });
  };

  // The owners port is the actor registry itself: consolidation runs inside the owner's actor. Without a
  // placement map this node hosts every scope.
  const activities = (placement = new NodePlacement('node-a', undefined, () => false, createLogger('silent'))) =>
    createConsolidateActivities({ owners: actors, placement: { assertHosted: (scope) => placement.assertHosted(scope), queuesOf: () => hostingQueues('engram', 'node-a') } });

  it('retracts the owner redundant facts through the actor and reports counts', async () => {
    await assert(owner, 'fact_a', 'Tea');
    await assert(owner, 'fact_b', ' tea ');
    await assert(owner, 'fact_c', 'coffee');
    await assert(other, 'fact_d', 'tea');
    await assert(other, 'fact_e', 'TEA');

    const env = new MockActivityEnvironment({ workflowExecution: { workflowId: 'consolidate/acme//user-1', runId: 'run-1' } }, quiet);
    const report = await env.run(activities().consolidateOwner, { tenant: 'acme', partition: null, entity_id: 'user-1' });

    expect(report).toEqual({ active_facts_before: 3, active_facts_after: 2, retracted: 1 });
    expect(graph.getFact(owner, 'fact_b')!.invalid_from).not.toBeNull();
    expect(graph.getFact(owner, 'fact_a')!.invalid_from).toBeNull();
    // Another owner's facts are not touched.
    expect([...graph.loadFacts(other)].filter((f) => f.invalid_from === null).map((f) => f.fact_id).sort()).toEqual(['fact_d', 'fact_e']);
  });

  it('is safe to retry: a second attempt retracts nothing more', async () => {
    await assert(owner, 'fact_a', 'x');
    await assert(owner, 'fact_b', 'X');
    const env = new MockActivityEnvironment({ attempt: 2 }, quiet);
    const ref = { tenant: 'acme', partition: null, entity_id: 'user-1' };
    await env.run(activities().consolidateOwner, ref);
    expect(await env.run(activities().consolidateOwner, ref)).toEqual({ active_facts_before: 1, active_facts_after: 1, retracted: 0 });
  });

  it('refuses, retracting nothing, an owner the placement map puts on another node', async () => {
    await assert(owner, 'fact_a', 'x');
    await assert(owner, 'fact_b', 'X');
    const dir = mkdtempSync(join(tmpdir(), 'engram-placement-'));
    const file = join(dir, 'placement.map');
    // One slot, on node-b: every scope is node-b's.
    writeFileSync(file, PlacementMap.of(['node-b'], []).format());
    const elsewhere = new NodePlacement('node-a', file, () => false, createLogger('silent'));
    const env = new MockActivityEnvironment({}, quiet);
    const failure = await env.run(activities(elsewhere).consolidateOwner, { tenant: 'acme', partition: null, entity_id: 'user-1' }).catch((e: unknown) => e);
    expect(failure).toMatchObject({ type: 'misdirected', nonRetryable: true });
    expect((failure as Error).message).toContain('node-b');
    expect([...graph.loadFacts(owner)].filter((f) => f.invalid_from === null)).toHaveLength(2);
    rmSync(dir, { recursive: true });
  });

  it('reports an empty scope as zero counts', async () => {
    const env = new MockActivityEnvironment({}, quiet);
    expect(await env.run(activities().consolidateOwner, { tenant: 'acme', partition: 'p1', entity_id: 'nobody' })).toEqual({
      active_facts_before: 0,
      active_facts_after: 0,
      retracted: 0,
    });
  });
});

describe('withAppFailures', () => {
  it('turns a 4xx AppError into a non-retryable ApplicationFailure typed with its code', async () => {
    const failure = await withAppFailures(() => Promise.reject(notFound('fact f1'))).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure).toMatchObject({ type: 'not_found', nonRetryable: true, message: 'fact f1 not found' });
  });

  it('leaves 5xx AppErrors to the retry policy', async () => {
    const failure = await withAppFailures(() => Promise.reject(unavailable('provider down'))).catch((e: unknown) => e);
    expect(failure).toMatchObject({ type: 'unavailable', nonRetryable: false });
  });

  it('fails for good on a 5xx AppError its thrower marked not retryable', async () => {
    const refused = new AppError('provider_error', 'the media provider refused the request (400)', { retryable: false });
    const failure = await withAppFailures(() => Promise.reject(refused)).catch((e: unknown) => e);
    expect(failure).toMatchObject({ type: 'provider_error', nonRetryable: true });
  });

  it('agrees with the workflows\' retry policy: every 4xx code, and only those, is never retried', () => {
    const policy = { start_to_close_timeout_ms: 1000, retry: { initial_interval_ms: 1, backoff_coefficient: 1, maximum_interval_ms: 1, maximum_attempts: 1 } };
    const fourXX = ERROR_CODES.filter((code) => STATUS_BY_CODE[code] < 500);
    expect([...(activityOptions(policy).retry?.nonRetryableErrorTypes ?? [])].sort()).toEqual([...fourXX].sort());
    expect(fourXX).toEqual(expect.arrayContaining(['unauthorized', 'rate_limited', 'not_found', 'invalid_input']));
    for (const code of ERROR_CODES) expect(new AppError(code, 'x').retryable).toBe(STATUS_BY_CODE[code] >= 500);
  });

  it('passes other errors through unchanged', async () => {
    const boom = new Error('boom');
    await expect(withAppFailures(() => Promise.reject(boom))).rejects.toBe(boom);
  });
});
