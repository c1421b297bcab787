import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { QueryEngine } from '../../src/query/engine.js';
import { candidates } from '../../src/query/exec/filter.js';
import type { QueryRequest } from '../../src/query/service.js';
import { cardinality } from '../../src/query/storage/docset.js';
import { openStore, type Store } from '../../src/store/lmdb.js';
import { metadataDoc, metadataFields, queryParts } from '../helpers/field-docs.js';

// Enough documents that a walk of a range's postings may read ~195 entries (N / 512) before it must give up.
const N = 100_000;
const T = 't';
const ctx = { tenant: T, partition: null, principal: 'p' };

/**
 * A numeric range walks its postings (one entry per value and segment) unless the walk would cost more
 * than reading the column: then it answers from the column. Either way the answer is the same; what
 * differs is how many posting entries it reads, which `reader.touched` counts.
 */
describe('a numeric range: walk its postings or read its column', () => {
  let dir: string;
  let store: Store;
  let engine: QueryEngine;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'engram-range-walk-'));
    store = openStore(dir);
    const parts = queryParts(store);
    engine = parts.engine;
    // `wide`: 5,000 values, 10,000 posting entries over the two segments; `few`: 80 values, 160 entries.
    await parts.service.declare(T, metadataFields({ wide: 'int', few: 'int' }), () => {});
    for (let from = 0; from < N; from += 10_000) {
      const docs = Array.from({ length: 10_000 }, (_, k) => metadataDoc(T, from + k, { wide: (from + k) % 5_000, few: (from + k) % 80 }));
      await store.transaction(() => engine.writer.writeMany(docs));
    }
  });
  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Documents matching the filter, and posting entries read for it (beyond the live set's own). */
  const run = (filter: QueryRequest['filter']) => {
    const base = engine.reader();
    candidates(base, ctx, null, N);
    const reader = engine.reader();
    const matched = candidates(reader, ctx, engine.compile(T, null, { filter }).query.filter, N);
    return { matched: cardinality(matched), postingsRead: reader.touched - base.touched };
  };

  it('gives up a walk over many values after its first entries project it too long, and answers from the column', () => {
    const { matched, postingsRead } = run({ field: 'wide', op: 'between', value: [1_000, 2_999] });
    expect(matched).toBe(40_000);
    // 4,000 entries in range: the first 128 (64 values) cover 3% of it, projecting ~4,000, far over budget.
    expect(postingsRead).toBeLessThanOrEqual(128);
  });

  it('walks a range whose bounds reach far past the values present to its end', () => {
    // The bound 1e9 alone would project the walk far over budget; the zone maps say no value exceeds 79.
    const loose = run({ field: 'few', op: 'between', value: [0, 1e9] });
    expect(loose).toEqual({ matched: N, postingsRead: 160 });
    const open = run({ field: 'few', op: 'gte', value: 10 });
    expect(open).toEqual({ matched: N - 10 * (N / 80), postingsRead: 140 });
  });

  it('answers alike from either path, bounds open or closed', () => {
    const viaColumn = run({ field: 'wide', op: 'gt', value: 999 });
    const viaWalk = run({ field: 'wide', op: 'lt', value: 30 });
    expect(viaColumn.matched).toBe(N - 1_000 * (N / 5_000));
    // The walk reads to its bound inclusive (value 30's two entries) and keeps what the leaf matches.
    expect(viaWalk).toEqual({ matched: 30 * (N / 5_000), postingsRead: 62 });
  });
});
