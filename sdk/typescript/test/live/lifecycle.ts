import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { ConflictError, type ExportLine } from '@engram-memory/sdk';
import { exportToFile, importFile } from '@engram-memory/sdk/node';
import { client, eventually, live, ownerId } from './harness.js';

describe('export, import and erasure through the SDK', () => {
  const admin = client({ apiKey: live.adminKey });

  test('export an owner line by line, import it into another owner, erase the first and follow the receipt', async () => {
    const source = admin.owner(ownerId('export'));
    const ada = await source.entities.upsert({ entity_type: 'person', display_name: 'Ada' });
    await source.facts.assert({ predicate: 'city', value: 'London', subject_type: 'entity', subject_id: ada.memory_entity_id });
    await source.documents.create({ content: 'Ada wrote the first program.' });

    const lines: ExportLine[] = [];
    for await (const line of source.exportLines()) lines.push(line);
    assert.deepEqual(lines.map((l) => l.type).sort(), ['document', 'entity', 'fact']);

    const copy = admin.owner(ownerId('import'));
    const report = await copy.import(lines);
    assert.deepEqual(report.imported, { entities: 1, relationships: 0, facts: 1, documents: 1 });
    assert.equal((await copy.entities.get(ada.memory_entity_id)).display_name, 'Ada');
    await assert.rejects(copy.import(lines), ConflictError, 'an import into a non-empty owner is 409');

    const dir = await mkdtemp(join(tmpdir(), 'engram-sdk-'));
    await exportToFile(source, join(dir, 'ada.ndjson'));
    const fromFile = admin.owner(ownerId('import-file'));
    assert.equal((await importFile(fromFile, join(dir, 'ada.ndjson'))).imported.documents, 1);

    const accepted = await source.erase();
    assert.ok(['pending', 'running', 'complete'].includes(accepted.state));
    const receipt = await eventually('the erasure completes', async () => {
      const r = await admin.erasure(accepted.receipt_id);
      return r.state === 'complete' ? r : undefined;
    });
    assert.notEqual(receipt.finished_at, null);
    assert.equal((await source.entities.list()).count, 0);
  });
});
