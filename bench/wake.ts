/**
 * What the field indexes cost a document write, and what a dormant tenant's first query pays instead
 * (issue 11, item 6). Three tenants receive the same documents through the document store, one per
 * transaction as `POST /v1/documents` writes them:
 *   raw       the same record puts with no write hook (the baseline)
 *   dormant   a tenant never queried: the hook returns at once
 *   awake     a tenant already queried: every write indexes the built-in fields
 * then the dormant tenant's first query, which indexes everything stored so far, is timed.
 * Run: `npx tsx bench/wake.ts [documents]` (default 20,000). No embedding: passages are left out.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { StoredDocument } from '../src/domain/documents.js';
import type { Scope } from '../src/domain/scope.js';
import { QueryService } from '../src/query/service.js';
import { DocumentRecords, DocumentStore } from '../src/store/documents.js';
import { openStore } from '../src/store/lmdb.js';

const N = Number(process.argv[2] ?? 20_000);

function makeDoc(tenant: string, i: number): StoredDocument {
  const at = 1_700_000_000_000 + i * 1000;
  return {
    doc_id: `doc_${i.toString(36).padStart(6, '0')}`, cid: 'mgc1-bench', tenant, entity_id: `owner${i % 100}`, partition: null, modality: 'text',
    content_type: 'text/plain', title: null, content: `document ${i} about something`, derived_text: null, derived_by: null, filename: null,
    metadata: { source: 'bench' }, tags: i % 3 ? ['note'] : ['note', 'todo'], source: null, readers: null, created_at: at, updated_at: at, deleted_at: null,
  };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'engram-bench-wake-'));
  const store = openStore(dir);
  const fields = new QueryService(store, new DocumentRecords(store), { maxGroups: 10_000, maxScanned: 1_000_000 }, { pageSize: 500, waitMs: 600_000 });
  const hooked = new DocumentStore(store, [fields.writer]);
  const bare = new DocumentStore(store, []);
  const ctx = (tenant: string) => ({ tenant, partition: null, principal: 'admin' });
  // Wake the awake tenant while it is empty, so every write below indexes.
  await fields.run(ctx('awake'), { limit: 1 });

  const write = async (docs: DocumentStore, tenant: string): Promise<number> => {
    let inHook = 0;
    for (let i = 0; i < N; i++) {
      const doc = makeDoc(tenant, i);
      const scope: Scope = { tenant, partition: null, entityId: doc.entity_id };
      await store.transaction(() => {
        const t0 = performance.now();
        docs.insert(scope, doc, { passages: [], vectors: [], embedder: 'none' });
        inHook += performance.now() - t0;
      });
    }
    return (inHook / N) * 1000;
  };
  const raw = await write(bare, 'raw');
  const dormant = await write(hooked, 'dormant');
  const awake = await write(hooked, 'awake');

  const t0 = performance.now();
  const answer = await fields.run(ctx('dormant'), { group_by: ['tags'], aggregate: [{ op: 'count', as: 'n' }] });
  const wakeMs = performance.now() - t0;
  const counted = answer.mode === 'groups' ? answer.scanned : 0;

  console.log(`${N.toLocaleString()} documents, one per transaction; main-thread time of the document store's insert (records + hooks):`);
  console.log(`  raw (no hook)   ${raw.toFixed(1)} µs/doc`);
  console.log(`  dormant tenant  ${dormant.toFixed(1)} µs/doc   ${(dormant / raw).toFixed(2)}x raw`);
  console.log(`  awake tenant    ${awake.toFixed(1)} µs/doc   ${(awake / raw).toFixed(2)}x raw`);
  console.log(`first query of the dormant tenant: ${wakeMs.toFixed(0)} ms for ${counted.toLocaleString()} documents (${((wakeMs / N) * 1000).toFixed(1)} µs/doc, ${(wakeMs / N / (awake / 1000)).toFixed(2)}x the awake write-time cost)`);
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}

await main();
