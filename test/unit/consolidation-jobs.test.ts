import { ServiceError, WorkflowFailedError } from '@temporalio/client';
import { ActivityFailure, ApplicationFailure, RetryState, TimeoutFailure, TimeoutType } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { AppError, notFound } from '../../src/errors.js';
import { jobError } from '../../src/temporal/failures.js';
import { jobMemo, jobSearchAttributes, jobWorkflowId, searchAttributeFlags } from '../../src/temporal/search-attributes.js';

const owner = { tenant: 'acme', partition: null, entityId: 'user-1' };

describe('job ids, memo and search attributes (what operators see)', () => {
  it('names the job and the scope, one id per job and scope', () => {
    expect(jobWorkflowId('consolidate', owner)).toBe('consolidate/acme//user-1');
    expect(jobWorkflowId('consolidate', { ...owner, partition: 'p1' })).toBe('consolidate/acme/p1/user-1');
    expect(jobWorkflowId('backfill-field', { tenant: 'acme', partition: 'p1' })).toBe('backfill-field/acme/p1');
  });

  it('encodes the parts so a slash inside an id cannot make two scopes share an id', () => {
    const a = jobWorkflowId('consolidate', { tenant: 't', partition: 'a/b', entityId: 'c' });
    const b = jobWorkflowId('consolidate', { tenant: 't', partition: 'a', entityId: 'b/c' });
    expect(a).not.toBe(b);
    expect(a).toBe('consolidate/t/a%2Fb/c');
  });

  it('puts identifiers only in the memo and the search attributes', () => {
    expect(jobMemo('consolidate', owner)).toEqual({ job: 'consolidate', tenant: 'acme', entity_id: 'user-1' });
    expect(jobMemo('consolidate', { ...owner, partition: 'p1' })).toEqual({ job: 'consolidate', tenant: 'acme', entity_id: 'user-1', partition: 'p1' });
    const attributes = jobSearchAttributes('consolidate', owner);
    expect(Object.fromEntries(attributes.getAll().map((pair) => [pair.key.name, pair.value]))).toEqual({
      EngramJob: 'consolidate',
      EngramTenant: 'acme',
      EngramOwner: 'user-1',
    });
    expect(searchAttributeFlags()).toEqual(['EngramJob=Keyword', 'EngramTenant=Keyword', 'EngramPartition=Keyword', 'EngramOwner=Keyword']);
  });
});

describe('jobError: what a route answers when a job fails', () => {
  const failedWith = (cause: Error) =>
    new WorkflowFailedError('Workflow execution failed', new ActivityFailure('activity failed', 'consolidateOwner', '1', RetryState.NON_RETRYABLE_FAILURE, 'worker', cause), RetryState.NON_RETRYABLE_FAILURE);

  it('keeps the code and message of an AppError raised in an activity', () => {
    const mapped = jobError('consolidate', failedWith(ApplicationFailure.create({ type: 'not_found', message: 'fact f1 not found', nonRetryable: true })), null, 2);
    expect(mapped).toMatchObject({ code: 'not_found', status: 404, message: 'fact f1 not found', expose: true });
  });

  it('passes AppErrors thrown before the job through unchanged', () => {
    const error = notFound('memory entity e1');
    expect(jobError('consolidate', error, null, 2)).toBe(error);
  });

  it('answers 503 unavailable when Temporal is unreachable or the wait was cut short', () => {
    const unreachable = new ServiceError('Failed to start Workflow', { cause: grpcError(14, 'No connection established') });
    expect(jobError('consolidate', unreachable, null, 2)).toMatchObject({ code: 'unavailable', status: 503, headers: { 'Retry-After': '2' } });
    expect(jobError('consolidate', new ServiceError('Failed to start Workflow', { cause: grpcError(4, 'Deadline exceeded') }), null, 2)).toMatchObject({ code: 'unavailable' });
    expect(jobError('consolidate', new Error('aborted'), 'Temporal at x is not reachable', 2)).toMatchObject({ code: 'unavailable', status: 503 });
  });

  it('answers 500 internal, without detail, for anything else', () => {
    const timedOut = failedWith(new TimeoutFailure('activity timed out', undefined, TimeoutType.START_TO_CLOSE));
    const mapped = jobError('consolidate', timedOut, null, 2);
    expect(mapped).toBeInstanceOf(AppError);
    expect(mapped).toMatchObject({ code: 'internal', status: 500, expose: false });
    expect(jobError('consolidate', new TypeError('x is undefined'), null, 2)).toMatchObject({ code: 'internal' });
    // A refused request is not an outage: retrying it later would not help.
    const refused = new ServiceError('Failed to start Workflow', { cause: grpcError(3, 'search attribute EngramOwner is not defined') });
    expect(jobError('consolidate', refused, null, 2)).toMatchObject({ code: 'internal', status: 500 });
  });
});

/** An error shaped as @grpc/grpc-js produces it. */
function grpcError(code: number, details: string): Error {
  return Object.assign(new Error(`${code} ${details}`), { code, details, metadata: {} });
}
