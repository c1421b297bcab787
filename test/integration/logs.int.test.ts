import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { memoryLog } from '../helpers/memory-log.js';
import { KEYS, startTestService, type TestService } from '../helpers/service.js';

// The service's log at its default level (info), written to memory; Temporal is real, so that the
// activities log through the SDK as they do in production.
const { log, lines, entries } = memoryLog();

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({
    log,
    env: { TEMPORAL_ENABLED: 'true', TEMPORAL_ADDRESS: inject('temporalAddress'), TEMPORAL_TASK_QUEUE: `logs-test-${randomUUID()}` },
  });
});
afterAll(async () => {
  await svc?.stop();
});

describe('request log', () => {
  it('one line per request: route template, method, status, latency, request id, tenant, owner digest; no secrets', async () => {
    const owner = 'alice-secret';
    const requestId = `trace-${randomUUID()}`;
    const created = await svc.call('POST', `/v1/documents?entity_id=${owner}`, { body: { content: 'private words in a private diary' } });
    expect(created.status).toBe(201);
    const path = `/v1/documents/${created.body.doc_id}?entity_id=${owner}&q=${encodeURIComponent('private words')}`;
    const res = await svc.call('GET', path, { headers: { 'x-request-id': requestId } });
    expect(res.status).toBe(400);

    const line = await vi.waitFor(() => {
      const found = entries().find((e) => e.msg === 'request' && e.requestId === requestId);
      if (!found) throw new Error('no request line yet');
      return found;
    });
    expect(line).toMatchObject({ level: 30, method: 'GET', route: '/v1/documents/:doc_id', status: 400, tenant: 'acme', owner: expect.stringMatching(/^[0-9a-f]{16}$/) });
    expect(line.ms).toEqual(expect.any(Number));
    const write = entries().find((e) => e.msg === 'request' && e.method === 'POST' && e.route === '/v1/documents');
    expect(write).toMatchObject({ status: 201, tenant: 'acme', owner: line.owner });

    const everything = lines.join('\n');
    for (const secret of [owner, 'private words', 'private%20words', 'diary', KEYS.acme, created.body.doc_id]) expect(everything).not.toContain(secret);
  });

  it('an unrouted request is logged without its path', async () => {
    const requestId = `trace-${randomUUID()}`;
    await svc.call('GET', '/v1/no-such-route/alice-secret-2', { headers: { 'x-request-id': requestId } });
    const line = await vi.waitFor(() => {
      const found = entries().find((e) => e.requestId === requestId);
      if (!found) throw new Error('no request line yet');
      return found;
    });
    expect(line).toMatchObject({ route: null, status: 404 });
    expect(lines.join('\n')).not.toContain('alice-secret-2');
  });
});

describe('activity log', () => {
  it('activity lines carry no Temporal task token', async () => {
    const owner = `owner-${randomUUID()}`;
    expect((await svc.call('POST', `/v1/memory/facts?entity_id=${owner}`, { body: { predicate: 'likes', value: 'tea' } })).status).toBe(201);
    expect((await svc.call('POST', `/v1/memory/consolidate?entity_id=${owner}`)).status).toBe(200);
    const activityLine = await vi.waitFor(() => {
      const found = entries().find((e) => e.msg === 'owner consolidated' && typeof e.workflowId === 'string' && e.workflowId.includes(owner));
      if (!found) throw new Error('no activity line yet');
      return found;
    });
    expect(activityLine).toMatchObject({ activityType: expect.any(String), attempt: 1 });
    expect(lines.join('\n')).not.toMatch(/taskToken/i);
  });
});
