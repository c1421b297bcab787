import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestService } from '../helpers/service.js';

// A tenant's field indexes are built on its first query (docs/query.md, "Indexes are built on first use").
describe('a tenant first queried over HTTP', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'engram-wake-http-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('answers 503 with Retry-After and the progress while the build outlasts the wait, then the full answer, across a restart', async () => {
    // One document per transaction and no wait: the first query cannot finish within its request.
    const env = { QUERY_WAKE_WAIT_MS: '0', QUERY_WAKE_PAGE_SIZE: '1' };
    const first = await startTestService({ dataDir, env });
    const tags = ['red', 'blue', 'red'];
    for (let i = 0; i < 30; i++) {
      const res = await first.call('POST', `/v1/documents?entity_id=owner-${i % 4}`, { body: { content: `note ${i}`, tags: [tags[i % 3]!] } });
      expect(res.status).toBe(201);
    }
    const body = { group_by: ['tags'], aggregate: [{ op: 'count', as: 'n' }] };
    const refused = await first.call('POST', '/v1/query', { body });
    expect(refused.status).toBe(503);
    expect(refused.body.code).toBe('unavailable');
    expect(refused.body.error).toMatch(/\d+ documents indexed so far/);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // Stopped mid-build: the next start resumes from the stored cursor, and writes meanwhile count.
    await first.close();
    const second = await startTestService({ dataDir, env: { QUERY_WAKE_PAGE_SIZE: '1' } });
    expect((await second.call('POST', '/v1/documents?entity_id=owner-9', { body: { content: 'late', tags: ['blue'] } })).status).toBe(201);
    const answer = await second.call('POST', '/v1/query', { body });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const counts = Object.fromEntries(answer.body.groups.map((g: { keys: { tags: string }; aggregates: { n: number } }) => [g.keys.tags, g.aggregates.n]));
    expect(counts).toEqual({ red: 20, blue: 11 });
    await second.close();
  });
});
