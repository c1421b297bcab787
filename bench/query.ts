/**
 * Structured queries over 1,000,000 documents of one tenant with 5 declared fields, each query beside
 * better-sqlite3 with equivalent indexes on the same data in the same run (issue 5).
 * Run: `npx tsx bench/query.ts [documents]`. Target: each query within 1.5x of SQLite's time or better.
 *
 * Documents are loaded through the field index writer directly (FieldWriter.writeMany) in batched
 * transactions, with their records, as the document store would write them. Queries run through the
 * engine's raw operations (src/query/engine.ts), so the index entries each one touches can be counted.
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StoredDocument } from '../src/domain/documents.js';
import { QueryEngine } from '../src/query/engine.js';
import { QueryService, type QueryRequest } from '../src/query/service.js';
import { DocumentRecords } from '../src/store/documents.js';
import { openStore } from '../src/store/lmdb.js';

const N = Number(process.argv[2] ?? 1_000_000);
const T = 'bench';
const BATCH = 10_000;
const RUNS = 15;
const STATUSES = ['open', 'closed', 'pending', 'archived', 'draft'];

const rand = (() => {
  let s = 42;
  return () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648);
})();

function makeDoc(i: number): StoredDocument & { f: { category: string; status: string; region: string; amount: number; score: number } } {
  const f = {
    category: `c${Math.floor(rand() * 100)}`,
    status: STATUSES[Math.floor(rand() * 5)]!,
    region: `r${Math.floor(rand() * 20)}`,
    amount: Math.floor(rand() * 10_000),
    score: Math.round(rand() * 1e6) / 1e4,
  };
  const at = 1_700_000_000_000 + i * 1000;
  return {
    doc_id: `doc_${i.toString(36).padStart(6, '0')}`,
    cid: 'mgc1-bench',
    tenant: T,
    entity_id: `owner${i % 1000}`,
    partition: null,
    modality: 'text',
    content_type: 'text/plain',
    title: null,
    content: `document ${i}`,
    derived_text: null,
    derived_by: null,
    filename: null,
    metadata: f,
    tags: [],
    source: null,
    readers: null,
    created_at: at,
    updated_at: at,
    deleted_at: null,
    f,
  };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'engram-bench-query-'));
  const store = openStore(join(dir, 'lmdb'));
  const records = new DocumentRecords(store);
  const fields = new QueryService(store, records, { maxGroups: 10_000, maxScanned: 1_000_000 });
  const engine = new QueryEngine(store, { maxGroups: 10_000, maxScanned: 1_000_000 });
  await fields.declare(
    T,
    [
      { name: 'category', type: 'string', source: { metadata: 'category' }, partition_scope: null },
      { name: 'status', type: 'string', source: { metadata: 'status' }, partition_scope: null },
      { name: 'region', type: 'string', source: { metadata: 'region' }, partition_scope: null },
      { name: 'amount', type: 'int', source: { metadata: 'amount' }, partition_scope: null },
      { name: 'score', type: 'float', source: { metadata: 'score' }, partition_scope: null },
    ],
    () => {},
  );
  const sqlite = new Database(join(dir, 'bench.sqlite'));
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.exec(`CREATE TABLE docs (doc_id TEXT PRIMARY KEY, created_at INTEGER, category TEXT, status TEXT, region TEXT, amount INTEGER, score REAL, body TEXT);
    CREATE INDEX docs_created ON docs(created_at); CREATE INDEX docs_category ON docs(category); CREATE INDEX docs_status ON docs(status);
    CREATE INDEX docs_region ON docs(region); CREATE INDEX docs_amount ON docs(amount); CREATE INDEX docs_score ON docs(score);`);
  const insert = sqlite.prepare('INSERT INTO docs VALUES (?, ?, ?, ?, ?, ?, ?, ?)');

  let loadEngram = 0;
  let loadSqlite = 0;
  for (let start = 0; start < N; start += BATCH) {
    const docs = Array.from({ length: Math.min(BATCH, N - start) }, (_, k) => makeDoc(start + k));
    let t0 = performance.now();
    await store.transaction(() => {
      for (const { f: _f, ...doc } of docs) store.records.put([T, '', doc.entity_id, 'doc', doc.doc_id], doc);
      engine.writer.writeMany(docs);
    });
    loadEngram += performance.now() - t0;
    t0 = performance.now();
    sqlite.transaction(() => {
      for (const { f, ...doc } of docs) insert.run(doc.doc_id, doc.created_at, f.category, f.status, f.region, f.amount, f.score, JSON.stringify(doc));
    })();
    loadSqlite += performance.now() - t0;
  }
  sqlite.exec('ANALYZE');
  console.log(`loaded ${N} documents: engram ${(loadEngram / 1000).toFixed(1)} s, sqlite ${(loadSqlite / 1000).toFixed(1)} s (ratio ${(loadEngram / loadSqlite).toFixed(2)}x)`);

  const ctx = { tenant: T, partition: null, principal: 'bench' };
  const engramRun = (request: QueryRequest) => {
    const reader = engine.reader();
    const result = engine.execute(ctx, engine.compile(T, null, request), reader);
    if (result.mode === 'documents') {
      const docs = records.getMany(result.page.docNos.map((docNo) => engine.locate(T, docNo, reader)!));
      return { rows: docs.length, total: result.page.total, touched: reader.touched, candidates: result.page.total };
    }
    return { rows: result.result.rows.length, total: result.result.totalGroups, touched: reader.touched, candidates: result.result.scanned };
  };

  const q1s = sqlite.prepare('SELECT body FROM docs WHERE category = ? AND status = ? ORDER BY created_at DESC, doc_id LIMIT 20');
  const q1c = sqlite.prepare('SELECT COUNT(*) AS n FROM docs WHERE category = ? AND status = ?');
  const q2s = sqlite.prepare('SELECT body FROM docs WHERE amount BETWEEN ? AND ? ORDER BY score DESC, doc_id LIMIT 20');
  const q2c = sqlite.prepare('SELECT COUNT(*) AS n FROM docs WHERE amount BETWEEN ? AND ?');
  const q3 = sqlite.prepare('SELECT region, status, COUNT(*) AS n, SUM(amount) AS s, AVG(score) AS a FROM docs GROUP BY region, status ORDER BY region, status');

  const queries: Array<{ name: string; engram: (i: number) => ReturnType<typeof engramRun>; sqlite: (i: number) => { rows: number; total: number } }> = [
    {
      name: 'selective filter page + total (category eq AND status eq, newest first, limit 20)',
      engram: (i) => engramRun({ filter: { and: [{ field: 'category', op: 'eq', value: `c${i % 100}` }, { field: 'status', op: 'eq', value: 'open' }] }, limit: 20 }),
      sqlite: (i) => {
        const rows = q1s.all(`c${i % 100}`, 'open') as Array<{ body: string }>;
        rows.forEach((r) => JSON.parse(r.body));
        return { rows: rows.length, total: (q1c.get(`c${i % 100}`, 'open') as { n: number }).n };
      },
    },
    {
      name: 'range filter sorted on another field (amount between, score desc, limit 20)',
      engram: (i) => engramRun({ filter: { field: 'amount', op: 'between', value: [(i % 9) * 1000, (i % 9) * 1000 + 999] }, sort: [{ by: 'score', dir: 'desc' }], limit: 20 }),
      sqlite: (i) => {
        const rows = q2s.all((i % 9) * 1000, (i % 9) * 1000 + 999) as Array<{ body: string }>;
        rows.forEach((r) => JSON.parse(r.body));
        return { rows: rows.length, total: (q2c.get((i % 9) * 1000, (i % 9) * 1000 + 999) as { n: number }).n };
      },
    },
    {
      name: 'two-key group-by with sum and avg (region x status over all documents)',
      engram: () =>
        engramRun({ group_by: ['region', 'status'], aggregate: [{ op: 'count' }, { op: 'sum', field: 'amount' }, { op: 'avg', field: 'score' }] }),
      sqlite: () => {
        const rows = q3.all();
        return { rows: rows.length, total: rows.length };
      },
    },
  ];

  for (const q of queries) {
    const te: number[] = [];
    const ts: number[] = [];
    let last: ReturnType<typeof engramRun> | null = null;
    let lastS: { rows: number; total: number } | null = null;
    for (let i = 0; i < RUNS + 2; i++) {
      let t0 = performance.now();
      last = q.engram(i);
      const e = performance.now() - t0;
      t0 = performance.now();
      lastS = q.sqlite(i);
      const s = performance.now() - t0;
      if (i >= 2) {
        te.push(e);
        ts.push(s);
      }
    }
    const me = median(te);
    const ms = median(ts);
    console.log(`\n${q.name}`);
    console.log(`  engram ${me.toFixed(2)} ms   sqlite ${ms.toFixed(2)} ms   ratio ${(me / ms).toFixed(2)}x (engram/sqlite, median of ${RUNS})`);
    console.log(`  rows ${last!.rows}/${lastS!.rows}, total ${last!.total}/${lastS!.total}, candidates ${last!.candidates}, index entries touched ${last!.touched}`);
  }
  sqlite.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}

await main();
