import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEYS, startTestService, type TestService } from '../helpers/service.js';

/**
 * Cursor paging of the memory lists (DECISIONS.md, Memory routes): walking every page with `cursor` gives
 * the one big page, in its order, under every filter; `next_cursor` is null exactly on the last page; a
 * cursor is refused with other filters or when it is not one the service issued; writes between pages
 * never make a walk repeat or skip a record.
 */
let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
  await seed('pager');
});
afterAll(async () => {
  await svc?.stop();
});

type ListName = 'entities' | 'relationships' | 'facts';
const BASE = Date.UTC(2026, 5, 1);
const iso = (ms: number) => new Date(ms).toISOString();
/** The as_of of the relationship lists: set once the first half of the edges is observed. */
let edgesMid = '';

async function post(path: string, body: unknown, s: TestService = svc) {
  const res = await s.call('POST', path, { body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

/**
 * 45 nodes whose ids do not follow their creation order (many share a `created_at` millisecond, so the id
 * breaks ties), 40 edges (every 4th retracted), and 60 facts at 17 distinct instants: single facts that
 * supersede each other, multi ones side by side, about the owner and about a node.
 */
async function seed(owner: string, s: TestService = svc): Promise<void> {
  const at = (list: string) => `/v1/memory/${list}?entity_id=${owner}`;
  for (let i = 0; i < 45; i++) {
    await post(at('entities'), { entity_type: i % 3 === 0 ? 'org' : 'person', memory_entity_id: `e-${(i * 7) % 45}` }, s);
  }
  const edges: string[] = [];
  for (let i = 0; i < 40; i++) {
    const edge = await post(at('relationships'), { from_entity_id: `e-${i % 5}`, to_entity_id: `e-${(i % 4) + 5}`, relationship_type: i % 2 ? 'knows' : 'works_with' }, s);
    edges.push(edge.relationship_id);
    if (i === 19) edgesMid = edge.observed_at;
  }
  for (const [i, id] of edges.entries()) if (i % 4 === 0) expect((await s.call('DELETE', `/v1/memory/relationships/${id}?entity_id=${owner}`)).status).toBe(200);
  for (let i = 0; i < 60; i++) {
    const predicate = ['city', 'mood', 'tag'][i % 3]!;
    const about = i % 5 === 0 ? { subject_type: 'entity', subject_id: 'e-1' } : {};
    await post(at('facts'), { predicate, value: `v${i}`, cardinality: predicate === 'tag' ? 'multi' : 'single', observed_at: iso(BASE + (i % 17) * 60_000), ...about }, s);
  }
}

interface Page {
  items: Array<Record<string, string>>;
  next: string | null;
}

async function page(list: ListName, query: string, limit: number, cursor: string | null, s: TestService = svc): Promise<Page> {
  const res = await s.call('GET', `/v1/memory/${list}?${query}&limit=${limit}${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.count).toBe(res.body[list].length);
  return { items: res.body[list], next: res.body.next_cursor };
}

/** Every page of a list, checking that only the last one has no cursor and that none is empty or short before it. */
async function walk(list: ListName, query: string, limit: number, between: (pageNo: number) => Promise<void> = async () => undefined, s: TestService = svc) {
  const items: Page['items'] = [];
  let cursor: string | null = null;
  for (let pageNo = 1; ; pageNo++) {
    const got: Page = await page(list, query, limit, cursor, s);
    items.push(...got.items);
    if (got.next === null) {
      expect(got.items.length > 0 || pageNo === 1, 'a cursor led to an empty page').toBe(true);
      return items;
    }
    expect(got.items).toHaveLength(limit);
    cursor = got.next;
    await between(pageNo);
  }
}

const ID_OF: Record<ListName, string> = { entities: 'memory_entity_id', relationships: 'relationship_id', facts: 'fact_id' };
const ids = (list: ListName, items: Page['items']) => items.map((r) => r[ID_OF[list]]!);

describe('walking every page', () => {
  // A filter is a function where it depends on the seeded data.
  const cases: Array<[ListName, string | (() => string)]> = [
    ['entities', ''],
    ['entities', '&entity_type=person'],
    ['relationships', ''],
    ['relationships', '&include_inactive=true'],
    ['relationships', '&from_entity_id=e-1&include_inactive=true'],
    ['relationships', '&to_entity_id=e-6'],
    ['relationships', '&relationship_type=knows'],
    ['relationships', () => `&as_of=${encodeURIComponent(edgesMid)}`],
    ['facts', ''],
    ['facts', '&include_inactive=true'],
    ['facts', '&predicate=tag'],
    ['facts', '&predicate=city&include_inactive=true'],
    ['facts', '&subject_type=entity&subject_id=e-1&include_inactive=true'],
    ['facts', `&as_of=${encodeURIComponent(iso(BASE + 8 * 60_000))}`],
    ['facts', '&subject_type=owner&predicate=city&history=true'],
  ];

  it.each(cases)('%s%s: every limit gives the one big page, in order, with null next_cursor exactly on the last page', async (list, filter) => {
    const query = `entity_id=pager${typeof filter === 'function' ? filter() : filter}`;
    const all = await page(list, query, 1000, null);
    expect(all.next).toBeNull();
    // Not vacuous: more than a few pages at the smaller limits.
    expect(all.items.length).toBeGreaterThanOrEqual(8);
    for (const limit of [1, 7, all.items.length - 1, all.items.length]) {
      const walked = await walk(list, query, limit);
      expect(ids(list, walked), `limit ${limit}`).toEqual(ids(list, all.items));
    }
  });

  it('keeps the filters on every page', async () => {
    const people = await walk('entities', 'entity_id=pager&entity_type=person', 4);
    expect(people.every((e) => e.entity_type === 'person')).toBe(true);
    const fromOne = await walk('relationships', 'entity_id=pager&from_entity_id=e-1&include_inactive=true', 2);
    expect(fromOne.every((r) => r.from_entity_id === 'e-1')).toBe(true);
    expect(fromOne.some((r) => r.invalid_from !== null)).toBe(true);
    const active = await walk('facts', 'entity_id=pager&predicate=city', 2);
    expect(active.every((f) => f.predicate === 'city' && f.invalid_from === null)).toBe(true);
  });

  it('orders relationships and facts by observed_at descending, history and entities ascending, ties by id', async () => {
    const key = (at: string, id: string) => `${at}|${id}`;
    const sorted = (items: Page['items'], at: string, id: string, desc: boolean) => {
      const keys = items.map((r) => key(r[at]!, r[id]!));
      const expected = [...keys].sort();
      expect(keys).toEqual(desc ? expected.reverse() : expected);
    };
    sorted(await walk('entities', 'entity_id=pager', 6), 'created_at', 'memory_entity_id', false);
    sorted(await walk('relationships', 'entity_id=pager&include_inactive=true', 6), 'observed_at', 'relationship_id', true);
    sorted(await walk('facts', 'entity_id=pager&include_inactive=true', 6), 'observed_at', 'fact_id', true);
    sorted(await walk('facts', 'entity_id=pager&subject_type=owner&predicate=mood&history=true', 3), 'observed_at', 'fact_id', false);
  });
});

describe('cursors that cannot be followed', () => {
  let facts: string;
  let entities: string;
  beforeAll(async () => {
    facts = (await page('facts', 'entity_id=pager&predicate=city&include_inactive=true', 2, null)).next!;
    entities = (await page('entities', 'entity_id=pager', 2, null)).next!;
  });

  const refused = async (path: string, rule: RegExp) => {
    const res = await svc.call('GET', path);
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.code).toBe('invalid_input');
    expect(res.body.error).toMatch(/query parameter cursor/);
    expect(res.body.error).toMatch(rule);
  };

  it('follows with another limit, and refuses other filters, another owner or another list by name', async () => {
    const c = encodeURIComponent(facts);
    expect((await svc.call('GET', `/v1/memory/facts?entity_id=pager&predicate=city&include_inactive=true&limit=5&cursor=${c}`)).status).toBe(200);
    // include_inactive=false is the default: the same filters as leaving it out.
    const e = encodeURIComponent(entities);
    expect((await svc.call('GET', `/v1/memory/relationships?entity_id=pager&include_inactive=false&cursor=${encodeURIComponent((await page('relationships', 'entity_id=pager', 2, null)).next!)}`)).status).toBe(200);
    await refused(`/v1/memory/facts?entity_id=pager&predicate=mood&include_inactive=true&cursor=${c}`, /other filters/);
    await refused(`/v1/memory/facts?entity_id=pager&predicate=city&cursor=${c}`, /other filters/);
    await refused(`/v1/memory/facts?entity_id=pager&predicate=city&include_inactive=true&as_of=2026-06-01T00:05:00Z&cursor=${c}`, /other filters/);
    await refused(`/v1/memory/facts?entity_id=someone-else&predicate=city&include_inactive=true&cursor=${c}`, /other filters/);
    await refused(`/v1/memory/entities?entity_id=pager&entity_type=person&cursor=${e}`, /other filters/);
    await refused(`/v1/memory/relationships?entity_id=pager&cursor=${e}`, /other filters/);
    // Another tenant with the same owner id.
    const globex = await svc.call('GET', `/v1/memory/entities?entity_id=pager&cursor=${e}`, { key: KEYS.globex });
    expect([globex.status, globex.body.error]).toEqual([400, expect.stringMatching(/cursor was issued for other filters/)]);
  });

  it('refuses a garbage, altered, empty or oversized cursor', async () => {
    const [payload, mac] = facts.split('.') as [string, string];
    const flipped = `${payload.slice(0, 5)}${payload[5] === 'A' ? 'B' : 'A'}${payload.slice(6)}.${mac}`;
    const forged = `${Buffer.from(JSON.stringify([1, 0, 'zzz', 'x'])).toString('base64url')}.${mac}`;
    for (const bad of [flipped, forged, `${payload}.${mac.slice(1)}`, 'not-a-cursor.AAAA']) {
      await refused(`/v1/memory/facts?entity_id=pager&predicate=city&include_inactive=true&cursor=${encodeURIComponent(bad)}`, /not a cursor this service issued/);
    }
    await refused('/v1/memory/facts?entity_id=pager&cursor=', /must not be empty/);
    await refused('/v1/memory/facts?entity_id=pager&cursor=abc', /must be a next_cursor the service returned/);
    await refused(`/v1/memory/facts?entity_id=pager&cursor=${payload}.${mac}.x`, /must be a next_cursor the service returned/);
    await refused(`/v1/memory/entities?entity_id=pager&cursor=${'A'.repeat(600)}.AAAA`, /at most 512 characters/);
    await refused(`/v1/memory/relationships?entity_id=pager&cursor=${encodeURIComponent('a b.c')}`, /must be a next_cursor/);
  });
});

describe('writes between pages', () => {
  it('never repeat or skip a record that was there at the start, whatever is added or updated meanwhile', async () => {
    const owner = 'pager-writes';
    await seed(owner);
    const at = (list: string) => `/v1/memory/${list}?entity_id=${owner}`;
    let n = 0;
    const lists: Array<[ListName, string, () => Promise<unknown>]> = [
      ['entities', '', async () => {
        // A new node, and an update of one already listed and of one not reached yet.
        await post(at('entities'), { entity_type: 'person', memory_entity_id: `new-${n++}` });
        await post(at('entities'), { entity_type: 'person', memory_entity_id: 'e-0', display_name: `renamed ${n}` });
        await post(at('entities'), { entity_type: 'person', memory_entity_id: 'e-44', display_name: `renamed ${n}` });
      }],
      ['relationships', '&include_inactive=true', async () => {
        await post(at('relationships'), { from_entity_id: 'e-2', to_entity_id: 'e-3', relationship_type: 'met' });
      }],
      ['facts', '&include_inactive=true', async () => {
        // Newest of all (before the position, in descending order), oldest of all (after it), and one among them.
        for (const when of [BASE + 3_600_000, BASE - 3_600_000, BASE + 8 * 60_000 + 1]) {
          await post(at('facts'), { predicate: 'note', value: `late ${n++}`, cardinality: 'multi', observed_at: iso(when) });
        }
      }],
    ];
    for (const [list, filter, write] of lists) {
      const query = `entity_id=${owner}${filter}`;
      const before = ids(list, (await page(list, query, 1000, null)).items);
      const walked = ids(list, await walk(list, query, 6, async () => void (await write())));
      expect(new Set(walked).size, `${list}: a record came twice`).toBe(walked.length);
      expect(walked.filter((id) => before.includes(id)), `${list}: a record was skipped or moved`).toEqual(before);
      // The writes did land somewhere in the list (the check above is not vacuous).
      expect((await page(list, query, 1000, null)).items.length).toBeGreaterThan(before.length);
    }
  });
});

describe('a cursor across a restart', () => {
  it('resumes where it stopped, the cursor key being derived from the node master secret', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'engram-paging-'));
    try {
      let first = await startTestService({ dataDir });
      await seed('restarted', first);
      const all = ids('facts', (await page('facts', 'entity_id=restarted&include_inactive=true', 1000, null, first)).items);
      const one = await page('facts', 'entity_id=restarted&include_inactive=true', 10, null, first);
      await first.close();
      first = await startTestService({ dataDir });
      try {
        const rest = await page('facts', 'entity_id=restarted&include_inactive=true', 1000, one.next, first);
        expect([...ids('facts', one.items), ...ids('facts', rest.items)]).toEqual(all);
      } finally {
        await first.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
