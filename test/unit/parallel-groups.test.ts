import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { StoredDocument } from '../../src/domain/documents.js';
import { QueryEngine } from '../../src/query/engine.js';
import { accumulatedRows, groupRows, groupRowsWithHelper } from '../../src/query/exec/groups.js';
import { GroupsHelper, type HalfReply } from '../../src/query/exec/parallel-groups.js';
import type { QueryRequest } from '../../src/query/service.js';
import { readNumericChunk } from '../../src/query/storage/columns.js';
import { addDoc, cardinality, splitInHalves, toArray, type DocSet } from '../../src/query/storage/docset.js';
import { CHUNK_SHIFT, CHUNK_SIZE, columnKey, generationKey } from '../../src/query/storage/layout.js';
import { openStore, type Store } from '../../src/store/lmdb.js';
import { metadataDoc, metadataFields, queryParts, writeDocs } from '../helpers/field-docs.js';

// Three segments of document numbers: aggregations over all of them, or most, are split in two halves.
const N = 150_000;
const T = 't';
const ctx = { tenant: T, partition: null, principal: 'p' };
const caps = { maxGroups: 10_000, maxScanned: 1_000_000 };

const rand = (() => {
  let s = 7;
  return () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648);
})();

/** Values with missing ones in every field, floats that do not add exactly, and a numeric group key. */
function fieldsOf(): StoredDocument['metadata'] {
  const r = rand();
  return {
    ...(r < 0.95 ? { k: `k${Math.floor(rand() * 30)}` } : {}),
    r: `r${Math.floor(rand() * 7)}`,
    ...(r > 0.03 ? { n: Math.floor(rand() * 100_000) - 50_000 } : {}),
    ...(r > 0.1 ? { x: rand() * 1_000 - 300 } : {}),
    d: Math.floor(rand() * 12),
  };
}

const requests: QueryRequest[] = [
  { group_by: ['k', 'r'], aggregate: [{ op: 'count' }, { op: 'sum', field: 'n' }, { op: 'avg', field: 'x' }, { op: 'min', field: 'x' }, { op: 'max', field: 'n' }] },
  { group_by: ['d'], aggregate: [{ op: 'sum', field: 'x' }, { op: 'count_distinct', field: 'k' }, { op: 'count', field: 'x' }] },
  { aggregate: [{ op: 'count' }, { op: 'sum', field: 'x' }, { op: 'min', field: 'n' }, { op: 'count_distinct', field: 'd' }] },
  { filter: { field: 'n', op: 'between', value: [-20_000, 30_000] }, group_by: ['r'], aggregate: [{ op: 'sum', field: 'n' }, { op: 'max', field: 'x' }], sort: [{ by: 'sum_n', dir: 'desc' }], limit: 3 },
  { filter: { field: 'd', op: 'gte', value: 3 }, group_by: ['k'], aggregate: [{ op: 'avg', field: 'n' }] },
];

/**
 * Large aggregations gather their later half on the helper thread. What a user sees must not depend on
 * it: the same answer to the bit as on one thread, the same as the reference accumulator, and never a
 * mix of two snapshots when a change commits while the helper reads.
 */
describe('aggregations on two threads', () => {
  let dir: string;
  let store: Store;
  let oneThread: QueryEngine;
  let twoThreads: QueryEngine;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'engram-parallel-groups-'));
    store = openStore(dir);
    const parts = queryParts(store);
    oneThread = parts.engine;
    twoThreads = new QueryEngine(store, caps, { helperThread: true });
    await parts.service.declare(T, metadataFields({ k: 'string', r: 'string', n: 'int', x: 'float', d: 'int' }), () => {});
    for (let from = 0; from < N; from += 10_000) {
      const docs = Array.from({ length: 10_000 }, (_, i) => metadataDoc(T, from + i, fieldsOf()));
      await store.transaction(() => oneThread.writer.writeMany(docs));
    }
  });
  afterAll(async () => {
    await twoThreads.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const sync = (request: QueryRequest) => oneThread.execute(ctx, oneThread.compile(T, null, request));
  const threaded = (request: QueryRequest) => twoThreads.run(ctx, twoThreads.compile(T, null, request));

  it('answers every aggregation to the bit as one thread does, with the later half from the helper', async () => {
    const helper = new GroupsHelper(store.path);
    try {
      for (const request of requests) {
        const one = sync(request);
        if (one.mode !== 'groups') throw new Error('a groups query');
        expect(one.result.scanned).toBeGreaterThan(65_536);
        const fresh = vi.fn(() => oneThread.reader());
        const two = await groupRowsWithHelper(oneThread.reader(), ctx, one.query, caps, helper, fresh);
        expect(fresh).not.toHaveBeenCalled(); // the helper's half was taken, not gathered again here
        expect(helper.outcomes.used).toBe(requests.indexOf(request) + 1);
        expect(JSON.stringify(two)).toBe(JSON.stringify(one.result));
        expect(JSON.stringify(await threaded(request))).toBe(JSON.stringify(one));
      }
    } finally {
      await helper.close();
    }
  });

  it('gives the reference accumulator’s groups: counts, integer sums, extremes and distinct counts exactly, float sums to rounding', () => {
    for (const request of requests) {
      const { query } = oneThread.compile(T, null, request);
      if (query.mode !== 'groups') throw new Error('a groups query');
      const one = sync(request);
      if (one.mode !== 'groups') throw new Error('groups');
      const reader = oneThread.reader();
      const all = toArray(reader.liveSet(T));
      // The reference over the same candidates (the unfiltered requests: every live document).
      if (request.filter) continue;
      const reference = accumulatedRows(reader, T, all, query, caps.maxGroups).slice(0, query.limit);
      expect(one.result.rows.map((r) => r.keys)).toEqual(reference.map((r) => r.keys));
      one.result.rows.forEach((row, i) =>
        row.values.forEach((v, j) => {
          const expected = reference[i]!.values[j]!;
          const a = query.aggregates[j]!;
          if (a.field?.type === 'float' && (a.op === 'sum' || a.op === 'avg')) expect(v).toBeCloseTo(expected, 6);
          else expect(v).toBe(expected);
        }),
      );
    }
  });

  it('runs the whole query again on this thread when the helper read another generation or failed', async () => {
    const request = requests[0]!;
    const { query } = oneThread.compile(T, null, request);
    if (query.mode !== 'groups') throw new Error('a groups query');
    const expected = JSON.stringify(groupRows(oneThread.reader(), ctx, query, caps));
    const replies: Array<Omit<HalfReply, 'id'>> = [
      { generation: 'a change committed meanwhile', partial: { keys: [['k0', 'r0']], aggregates: [] } },
      { error: 'the query helper thread exited (code 1)' },
    ];
    const outcomes = { used: 0, changed: 0, failed: 0 };
    for (const reply of replies) {
      const helper = { gather: async () => ({ id: 1, ...reply }), outcomes } as unknown as GroupsHelper;
      const fresh = vi.fn(() => oneThread.reader());
      const result = await groupRowsWithHelper(oneThread.reader(), ctx, query, caps, helper, fresh);
      expect(JSON.stringify(result)).toBe(expected);
      expect(fresh).toHaveBeenCalledTimes(1);
    }
    expect(outcomes).toEqual({ used: 0, changed: 1, failed: 1 }); // what engram_query_halves_total counts
  });

  it('never mixes two snapshots when a change to both halves commits while the helper reads', async () => {
    const request: QueryRequest = { aggregate: [{ op: 'sum', field: 'n' }, { op: 'count', field: 'n' }] };
    const nVer = oneThread.schema.resolver(T, null)('n')!.ver;
    const db = oneThread.db;
    for (let round = 0; round < 12; round++) {
      const before = JSON.stringify(sync(request));
      // One document in the earlier half and one in the later get +1 in the same commit, queued to
      // LMDB's write thread now, so it may land before or after either thread takes its snapshot.
      const puts = [0, N - 1].map((docNo) => {
        const key = columnKey(T, nVer, docNo >>> CHUNK_SHIFT);
        const chunk = readNumericChunk(db, key);
        const at = docNo & (CHUNK_SIZE - 1);
        chunk[at] = Number.isNaN(chunk[at]!) ? 1 : chunk[at]! + 1;
        return db.bin.put(key, Buffer.from(chunk.buffer));
      });
      puts.push(db.meta.put(generationKey(T), `test change ${round}`));
      const answer = JSON.stringify(await threaded(request));
      await Promise.all(puts);
      const after = JSON.stringify(sync(request));
      expect(after).not.toBe(before);
      expect([before, after]).toContain(answer);
    }
  });

  it('stores a new generation with every change to the indexes, and none with a query', async () => {
    const first = oneThread.reader().generation(T);
    sync(requests[0]!);
    expect(oneThread.reader().generation(T)).toBe(first);
    const service = queryParts(store).service;
    await writeDocs(store, service, T, [[undefined, metadataDoc(T, N, fieldsOf())]]);
    expect(oneThread.reader().generation(T)).not.toBe(first);
  });
});

describe('splitInHalves', () => {
  const setOf = (docNos: number[]): DocSet => {
    const set: DocSet = new Map();
    for (const d of docNos) addDoc(set, d);
    return set;
  };
  const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

  it('cuts between segments where the earlier part reaches half of the members', () => {
    const set = setOf([...range(0, 1_000), ...range(65_536, 65_536 + 10), ...range(131_072, 131_072 + 1_500)]);
    const [earlier, later] = splitInHalves(set, 100)!;
    expect([...earlier.keys()]).toEqual([0, 1]);
    expect([...later.keys()]).toEqual([2]);
    expect(cardinality(earlier) + cardinality(later)).toBe(cardinality(set));
  });

  it('keeps a set whole when it is small or lies in one segment', () => {
    expect(splitInHalves(setOf([1, 70_000]), 3)).toBeNull();
    expect(splitInHalves(setOf(range(0, 60_000)), 100)).toBeNull();
  });

  it('leaves neither part empty, however the members lie', () => {
    const [earlier, later] = splitInHalves(setOf([...range(0, 5_000), 65_536]), 10)!;
    expect(cardinality(earlier)).toBe(5_000);
    expect(cardinality(later)).toBe(1);
  });
});
