/**
 * Structured queries over 1,000,000 documents of one tenant with 5 declared fields, each query beside
 * better-sqlite3 with equivalent indexes (issue 5) and DuckDB (2 threads, issue 16) on the same data in
 * the same run. Engram runs as the service does, aggregations on two threads (QUERY_THREADS=2); their
 * time on one thread is printed too. Run: `npx tsx bench/query.ts [documents]`. Targets (issue 16): every query at most 1.0x
 * SQLite's time, the two aggregations at most 2x DuckDB's, loading at most 2x SQLite's.
 *
 * Documents are loaded through the field index writer directly (FieldWriter.writeMany) in batched
 * transactions, with their records, as the document store would write them. Queries run through the
 * engine's raw operations (src/query/engine.ts), so the index entries each one touches can be counted.
 * Last, single documents are written through the write hook, one transaction each, to time what a `PUT`
 * of one document costs the indexes of a tenant this large.
 */
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
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

/** `a` as a multiple of its baseline `b`. */
const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}x`;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'engram-bench-query-'));
  const store = openStore(join(dir, 'lmdb'));
  const records = new DocumentRecords(store);
  const fields = new QueryService(store, records, { maxGroups: 10_000, maxScanned: 1_000_000 });
  // As the service runs it (QUERY_THREADS=2): aggregations over 65,536 candidates or more on two threads, like DuckDB's.
  const engine = new QueryEngine(store, { maxGroups: 10_000, maxScanned: 1_000_000 }, { helperThread: true });
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
  // DuckDB without indexes: it scans columns with zone maps, which is what a user picking it for analytics gets.
  const duckDb = await DuckDBInstance.create(join(dir, 'bench.duckdb'), { threads: '2' });
  const duck = await duckDb.connect();
  await duck.run('SET threads = 2'); // as the instance option says: the comparison is with 2 threads
  await duck.run('CREATE TABLE docs (doc_id VARCHAR, created_at BIGINT, category VARCHAR, status VARCHAR, region VARCHAR, amount INTEGER, score DOUBLE, body VARCHAR)');

  let loadEngram = 0;
  let loadSqlite = 0;
  let loadDuck = 0;
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
    t0 = performance.now();
    await appendToDuck(duck, docs);
    loadDuck += performance.now() - t0;
  }
  let t0 = performance.now();
  sqlite.exec('ANALYZE');
  loadSqlite += performance.now() - t0;
  t0 = performance.now();
  await duck.run('CHECKPOINT');
  loadDuck += performance.now() - t0;
  const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  console.log(
    `loaded ${N} documents: engram ${secs(loadEngram)}, sqlite ${secs(loadSqlite)}, duckdb ${secs(loadDuck)} (engram/sqlite ${(loadEngram / loadSqlite).toFixed(2)}x, engram/duckdb ${(loadEngram / loadDuck).toFixed(2)}x)`,
  );

  const ctx = { tenant: T, partition: null, principal: 'bench' };
  /** A query as the service runs it; `oneThread` keeps an aggregation on this thread, to print that too. */
  const engramRun = async (request: QueryRequest, oneThread = false) => {
    const reader = engine.reader();
    const compiled = engine.compile(T, null, request);
    const result = oneThread ? engine.execute(ctx, compiled, reader) : await engine.run(ctx, compiled, reader);
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
  const q3Sql = 'SELECT region, status, COUNT(*) AS n, SUM(amount) AS s, AVG(score) AS a FROM docs GROUP BY region, status ORDER BY region, status';
  const q4Sql = 'SELECT category, COUNT(*) AS n, SUM(amount) AS s, MAX(score) AS m FROM docs WHERE amount BETWEEN ? AND ? GROUP BY category ORDER BY category';
  const q3 = sqlite.prepare(q3Sql);
  const q4 = sqlite.prepare(q4Sql);
  const range = (i: number): [number, number] => [(i % 5) * 1000, (i % 5) * 1000 + 3999];
  const duckRows = async (sql: string, values: Array<string | number> = []) => (await duck.runAndReadAll(sql, values)).getRows();

  const queries: Array<{
    name: string;
    aggregation: boolean;
    engram: (i: number, oneThread?: boolean) => ReturnType<typeof engramRun>;
    sqlite: (i: number) => { rows: number; total: number };
    duckdb: (i: number) => Promise<{ rows: number; total: number }>;
  }> = [
    {
      name: 'selective filter page + total (category eq AND status eq, newest first, limit 20)',
      aggregation: false,
      engram: (i) => engramRun({ filter: { and: [{ field: 'category', op: 'eq', value: `c${i % 100}` }, { field: 'status', op: 'eq', value: 'open' }] }, limit: 20 }),
      sqlite: (i) => {
        const rows = q1s.all(`c${i % 100}`, 'open') as Array<{ body: string }>;
        rows.forEach((r) => JSON.parse(r.body));
        return { rows: rows.length, total: (q1c.get(`c${i % 100}`, 'open') as { n: number }).n };
      },
      duckdb: async (i) => {
        const rows = await duckRows('SELECT body FROM docs WHERE category = $1 AND status = $2 ORDER BY created_at DESC, doc_id LIMIT 20', [`c${i % 100}`, 'open']);
        rows.forEach((r) => JSON.parse(r[0] as string));
        const total = await duckRows('SELECT COUNT(*) FROM docs WHERE category = $1 AND status = $2', [`c${i % 100}`, 'open']);
        return { rows: rows.length, total: Number(total[0]![0]) };
      },
    },
    {
      name: 'range filter sorted on another field (amount between, score desc, limit 20)',
      aggregation: false,
      engram: (i) => engramRun({ filter: { field: 'amount', op: 'between', value: [(i % 9) * 1000, (i % 9) * 1000 + 999] }, sort: [{ by: 'score', dir: 'desc' }], limit: 20 }),
      sqlite: (i) => {
        const rows = q2s.all((i % 9) * 1000, (i % 9) * 1000 + 999) as Array<{ body: string }>;
        rows.forEach((r) => JSON.parse(r.body));
        return { rows: rows.length, total: (q2c.get((i % 9) * 1000, (i % 9) * 1000 + 999) as { n: number }).n };
      },
      duckdb: async (i) => {
        const bounds = [(i % 9) * 1000, (i % 9) * 1000 + 999];
        const rows = await duckRows('SELECT body FROM docs WHERE amount BETWEEN $1 AND $2 ORDER BY score DESC, doc_id LIMIT 20', bounds);
        rows.forEach((r) => JSON.parse(r[0] as string));
        const total = await duckRows('SELECT COUNT(*) FROM docs WHERE amount BETWEEN $1 AND $2', bounds);
        return { rows: rows.length, total: Number(total[0]![0]) };
      },
    },
    {
      name: 'two-key group-by with sum and avg (region x status over all documents)',
      aggregation: true,
      engram: (_, oneThread) =>
        engramRun({ group_by: ['region', 'status'], aggregate: [{ op: 'count' }, { op: 'sum', field: 'amount' }, { op: 'avg', field: 'score' }] }, oneThread),
      sqlite: () => {
        const rows = q3.all();
        return { rows: rows.length, total: rows.length };
      },
      duckdb: async () => {
        const rows = await duckRows(q3Sql);
        return { rows: rows.length, total: rows.length };
      },
    },
    {
      name: 'filtered aggregation (amount between, 40% of documents, group by category, count, sum, max)',
      aggregation: true,
      engram: (i, oneThread) =>
        engramRun(
          {
            filter: { field: 'amount', op: 'between', value: range(i) },
            group_by: ['category'],
            aggregate: [{ op: 'count' }, { op: 'sum', field: 'amount' }, { op: 'max', field: 'score' }],
          },
          oneThread,
        ),
      sqlite: (i) => {
        const rows = q4.all(...range(i));
        return { rows: rows.length, total: rows.length };
      },
      duckdb: async (i) => {
        const rows = await duckRows(q4Sql.replace('?', '$1').replace('?', '$2'), range(i));
        return { rows: rows.length, total: rows.length };
      },
    },
  ];

  for (const q of queries) {
    const times = { engram: [] as number[], engramOneThread: [] as number[], sqlite: [] as number[], duckdb: [] as number[] };
    let last: Awaited<ReturnType<typeof engramRun>> | null = null;
    let lastS: { rows: number; total: number } | null = null;
    let lastD: { rows: number; total: number } | null = null;
    for (let i = 0; i < RUNS + 2; i++) {
      let t0 = performance.now();
      last = await q.engram(i);
      const e = performance.now() - t0;
      t0 = performance.now();
      if (q.aggregation) await q.engram(i, true);
      const e1 = performance.now() - t0;
      t0 = performance.now();
      lastS = q.sqlite(i);
      const s = performance.now() - t0;
      t0 = performance.now();
      lastD = await q.duckdb(i);
      const d = performance.now() - t0;
      if (i >= 2) {
        times.engram.push(e);
        times.engramOneThread.push(e1);
        times.sqlite.push(s);
        times.duckdb.push(d);
      }
    }
    const [me, ms, md] = [median(times.engram), median(times.sqlite), median(times.duckdb)];
    console.log(`\n${q.name}`);
    console.log(`  engram ${me.toFixed(2)} ms   sqlite ${ms.toFixed(2)} ms   duckdb ${md.toFixed(2)} ms (medians of ${RUNS})`);
    console.log(`  engram/sqlite ${ratio(me, ms)} (target ≤ 1.0x)   engram/duckdb ${ratio(me, md)}${q.aggregation ? ' (target ≤ 2x)' : ''}`);
    if (q.aggregation) {
      const m1 = median(times.engramOneThread);
      console.log(`  engram on one thread (QUERY_THREADS=1) ${m1.toFixed(2)} ms: ${ratio(m1, md)} duckdb, ${ratio(m1, me)} the two threads' time`);
    }
    console.log(`  rows ${last!.rows}/${lastS!.rows}/${lastD!.rows}, total ${last!.total}/${lastS!.total}/${lastD!.total}, candidates ${last!.candidates}, index entries touched ${last!.touched}`);
  }
  await engine.close();
  await singleWrites(store, fields, sqlite);
  duck.closeSync();
  duckDb.closeSync();
  sqlite.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}

/**
 * A single document's index write on this tenant of N documents (the write hook, in its own transaction,
 * as one `PUT` writes it): new documents, then an update of each; beside SQLite's single-row INSERT and
 * UPDATE of the same values on its table of N rows (the statement alone, in its own transaction, as the
 * hook is timed without the commit). Run after the queries, which compare totals with SQLite and DuckDB.
 */
async function singleWrites(store: ReturnType<typeof openStore>, fields: QueryService, sqlite: Database.Database): Promise<void> {
  const SINGLE = 500;
  const WARM = 20;
  const timed = async (make: (i: number) => [StoredDocument | undefined, StoredDocument], sqlRun: (doc: StoredDocument) => void) => {
    const engram: number[] = [];
    const raw: number[] = [];
    for (let i = 0; i < SINGLE + WARM; i++) {
      const [prev, next] = make(i);
      await store.transaction(() => {
        store.records.put([T, '', next.entity_id, 'doc', next.doc_id], next);
        const t0 = performance.now();
        fields.writer.onDocumentWrite(prev, next);
        if (i >= WARM) engram.push(performance.now() - t0);
      });
      sqlite.transaction(() => {
        const t0 = performance.now();
        sqlRun(next);
        if (i >= WARM) raw.push(performance.now() - t0);
      })();
    }
    return { engram: median(engram), sqlite: median(raw) };
  };
  const meta = (doc: StoredDocument) => doc.metadata as { category: string; status: string; region: string; amount: number; score: number };
  const insertRow = sqlite.prepare('INSERT INTO docs VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
  const updateRow = sqlite.prepare('UPDATE docs SET amount = ?, status = ?, body = ? WHERE doc_id = ?');
  const written: StoredDocument[] = [];
  const insert = await timed(
    (i) => {
      const { f: _f, ...doc } = makeDoc(N + i);
      written.push(doc);
      return [undefined, doc];
    },
    (doc) => {
      const f = meta(doc);
      insertRow.run(doc.doc_id, doc.created_at, f.category, f.status, f.region, f.amount, f.score, JSON.stringify(doc));
    },
  );
  const update = await timed(
    (i) => {
      const prev = written[i]!;
      const next = { ...prev, metadata: { ...prev.metadata, amount: Number(prev.metadata.amount) + 1, status: 'draft' }, updated_at: prev.updated_at + 5 };
      written[i] = next;
      return [prev, next];
    },
    (doc) => void updateRow.run(meta(doc).amount, meta(doc).status, JSON.stringify(doc), doc.doc_id),
  );
  const us = (ms: number) => `${Math.round(ms * 1000)} µs`;
  console.log(`\nsingle-document index write (write hook, own transaction), tenant of ${N} documents, medians of ${SINGLE}:`);
  console.log(`  insert ${us(insert.engram)} vs sqlite ${us(insert.sqlite)} (${ratio(insert.engram, insert.sqlite)}); update ${us(update.engram)} vs sqlite ${us(update.sqlite)} (${ratio(update.engram, update.sqlite)})`);
}

/** One batch into DuckDB through its appender (its fastest way in from JavaScript). */
async function appendToDuck(duck: DuckDBConnection, docs: ReturnType<typeof makeDoc>[]): Promise<void> {
  const appender = await duck.createAppender('docs');
  for (const { f, ...doc } of docs) {
    appender.appendVarchar(doc.doc_id);
    appender.appendBigInt(BigInt(doc.created_at));
    appender.appendVarchar(f.category);
    appender.appendVarchar(f.status);
    appender.appendVarchar(f.region);
    appender.appendInteger(f.amount);
    appender.appendDouble(f.score);
    appender.appendVarchar(JSON.stringify(doc));
    appender.endRow();
  }
  appender.closeSync();
}

await main();
