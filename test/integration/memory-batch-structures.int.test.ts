import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startTestService } from '../helpers/service.js';

/**
 * LMDB keeps the shapes of records it encodes (msgpack shared structures) in the store itself. A batch
 * refused in a fresh DATA_DIR may be the first write of a shape: whatever it recorded is undone with it,
 * and the records written after it must still read back after a restart.
 */
describe.each(['on', 'off'])('a refused first batch, CONTENT_ENCRYPTION=%s', (encryption) => {
  it('leaves every later record readable after a restart', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'engram-batch-shapes-'));
    const env = { CONTENT_ENCRYPTION: encryption };
    try {
      let node = await startTestService({ dataDir, env });
      const refused = await node.call('POST', '/v1/memory/batch?entity_id=o', {
        body: {
          operations: [
            { op: 'upsert_entity', entity_type: 'person', memory_entity_id: 'ann', display_name: 'Ann', attributes: { age: 3 } },
            { op: 'upsert_entity', entity_type: 'person', memory_entity_id: 'bob' },
            { op: 'upsert_relationship', from_entity_id: 'ann', to_entity_id: 'bob', relationship_type: 'knows', relationship_id: 'ab' },
            { op: 'assert_fact', subject_type: 'entity', subject_id: 'ann', predicate: 'city', value: 'Paris' },
            { op: 'assert_fact', subject_type: 'entity', subject_id: 'ann', predicate: 'city', value: 'Rome' },
            { op: 'retract_relationship', relationship_id: 'ab' },
            { op: 'retract_fact', fact_id: 'fact_none' },
          ],
        },
      });
      expect(refused.status).toBe(404);
      const call = (method: string, path: string, body?: object) => node.call(method, `/v1/memory/${path}`, body ? { body } : {});
      await call('POST', 'entities?entity_id=o', { entity_type: 'person', memory_entity_id: 'ann', display_name: 'Ann', attributes: { age: 3 } });
      await call('POST', 'entities?entity_id=o', { entity_type: 'person', memory_entity_id: 'bob' });
      await call('POST', 'relationships?entity_id=o', { from_entity_id: 'ann', to_entity_id: 'bob', relationship_type: 'knows', relationship_id: 'ab' });
      await call('POST', 'facts?entity_id=o', { subject_type: 'entity', subject_id: 'ann', predicate: 'city', value: 'Paris' });
      await call('POST', 'facts?entity_id=o', { subject_type: 'entity', subject_id: 'ann', predicate: 'city', value: 'Rome' });
      await call('DELETE', 'relationships/ab?entity_id=o');
      await node.close();
      node = await startTestService({ dataDir, env });
      const listed = await call('GET', 'entities?entity_id=o');
      expect(listed.status, JSON.stringify(listed.body)).toBe(200);
      expect(listed.body.entities.map((e: any) => [e.memory_entity_id, e.attributes])).toEqual([
        ['ann', { age: 3 }],
        ['bob', {}],
      ]);
      const edges = await call('GET', 'relationships?entity_id=o&include_inactive=true');
      expect(edges.body.relationships.map((r: any) => [r.relationship_id, r.invalid_from !== null])).toEqual([['ab', true]]);
      const chain = await call('GET', 'facts?entity_id=o&history=true&subject_type=entity&subject_id=ann&predicate=city');
      expect(chain.body.facts.map((f: any) => [f.value, f.invalid_from !== null])).toEqual([
        ['Paris', true],
        ['Rome', false],
      ]);
      await node.close();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
