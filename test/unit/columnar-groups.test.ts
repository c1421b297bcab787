import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GroupAccumulator } from '../../src/query/plan/aggregate.js';
import type { DocValue } from '../../src/query/plan/types.js';
import type { QueryRequest } from '../../src/query/service.js';
import { openStore, type Store } from '../../src/store/lmdb.js';
import { metadataDoc, metadataFields, queryParts } from '../helpers/field-docs.js';

type Row = { s?: string; k?: number; x?: number };

const FIELDS = metadataFields({ s: 'string', k: 'int', x: 'float' });
const row: fc.Arbitrary<Row> = fc.record(
  { s: fc.constantFrom('open', 'closed', 'é', '日本', ''), k: fc.integer({ min: -3, max: 3 }), x: fc.constantFrom(0.5, 2.25, -1e9, 0.1, 7) },
  { requiredKeys: [] },
);
const FILTERS = { range: { field: 'k', op: 'between' as const, value: [-1, 2] }, open: { field: 's', op: 'eq' as const, value: 'open' } };
/** What each filter keeps, judged per document. */
const KEEPS: Record<keyof typeof FILTERS, (r: Row) => boolean> = { range: (r) => r.k !== undefined && r.k >= -1 && r.k <= 2, open: (r) => r.s === 'open' };
const request = fc.record({
  group_by: fc.uniqueArray(fc.constantFrom('s', 'k', 'x'), { maxLength: 2 }),
  aggregate: fc.constant([
    { op: 'count' as const },
    { op: 'count' as const, field: 's', as: 'with_s' },
    { op: 'count_distinct' as const, field: 's', as: 'distinct_s' },
    { op: 'count_distinct' as const, field: 'x', as: 'distinct_x' },
    { op: 'sum' as const, field: 'k' },
    { op: 'sum' as const, field: 'x' },
    { op: 'avg' as const, field: 'x' },
    { op: 'min' as const, field: 'k' },
    { op: 'max' as const, field: 'x' },
  ]),
  filterName: fc.option(fc.constantFrom('range' as const, 'open' as const), { nil: undefined }),
});

describe('Mode B on typed column chunks', () => {
  let dir: string;
  let store: Store;
  let tenants = 0;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'engram-columnar-'));
    store = openStore(dir);
  });
  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers like a per-document accumulation over random documents, across chunk boundaries, the group cap included', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(row, { maxLength: 2_600, size: 'max' }), request, fc.constantFrom(4, 10_000), async (rows, { filterName, ...shape }, maxGroups) => {
        const req: QueryRequest = { ...shape, aggregate: [...shape.aggregate], filter: filterName && FILTERS[filterName] };
        const t = `t${tenants++}`;
        const { service, engine } = queryParts(store, { maxGroups, maxScanned: 1_000_000 });
        await service.declare(t, FIELDS, () => {});
        await store.transaction(() => engine.writer.writeMany(rows.map((r, n) => metadataDoc(t, n, r))));

        const compiled = engine.compile(t, null, req);
        if (compiled.query.mode !== 'groups') throw new Error('mode');
        const query = compiled.query;
        const answer = () => {
          const result = engine.execute({ tenant: t, partition: null, principal: 'p' }, compiled);
          return result.mode === 'groups' ? { rows: result.result.rows, total: result.result.totalGroups } : null;
        };
        // The naive computation: every matching document, one at a time, through the accumulator.
        const naive = () => {
          const acc = new GroupAccumulator(query.groupBy, query.aggregates, maxGroups);
          const value = (r: Row, name: string | undefined): DocValue => (name === undefined ? null : (r[name as keyof Row] ?? null));
          const kept = filterName ? rows.filter(KEEPS[filterName]) : rows;
          for (const r of kept) acc.add(query.groupBy.map((f) => value(r, f.name)), query.aggregates.map((a) => value(r, a.field?.name)));
          const all = acc.rows(query.sort);
          return { rows: all.slice(0, query.limit), total: all.length };
        };
        const outcome = (run: () => unknown) => {
          try {
            return { ok: run() };
          } catch (error) {
            return { error: (error as Error).message };
          }
        };
        expect(outcome(answer)).toEqual(outcome(naive));
      }),
      { numRuns: 30 },
    );
  }, 120_000);
});
