import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Modality } from '../../src/domain/documents.js';
import { normalise } from '../../src/vector/embedder.js';
import { exactSearch } from '../../src/vector/exact.js';
import { OwnerVectorIndex } from '../../src/vector/owner-index.js';

const dims = 32;
const dir = mkdtempSync(join(tmpdir(), 'engram-vec-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Deterministic pseudo-random unit vectors. */
function vectors(n: number, seed: number): Float32Array[] {
  let s = seed;
  const rand = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32) - 0.5;
  return Array.from({ length: n }, () => normalise(Float32Array.from({ length: dims }, rand)));
}

function makeIndex(name: string, exactMax = 50) {
  const errors: unknown[] = [];
  const index = new OwnerVectorIndex({ dims, embedderId: 'test', exactMax, ef: 100, m: 16, efConstruction: 200, filePath: join(dir, name), onError: (e) => errors.push(e) });
  return { index, errors };
}

function fill(index: OwnerVectorIndex, vs: Float32Array[], modalityOf: (i: number) => Modality = () => 'text') {
  vs.forEach((v, i) => index.putDoc(`d${i}`, { modality: modalityOf(i), readers: null, deleted: false }, [{ label: i, vector: v }]));
}

const all = { principal: 'p' };

describe('OwnerVectorIndex', () => {
  const data = vectors(600, 7);
  const queries = vectors(30, 99);

  it('searches exactly while small and matches brute force', () => {
    const { index } = makeIndex('small', 10_000);
    fill(index, data);
    index.maybeBuild();
    expect(index.approximate).toBe(false);
    const q = queries[0]!;
    const expected = exactSearch(Float32Array.from(data.flatMap((v) => [...v])), dims, data.keys(), q, 5).map((h) => `d${h.label}`);
    expect(index.search(q, 5, all).map((h) => h.docId)).toEqual(expected);
  });

  it('builds hnswlib off the event loop above the threshold, with recall@10 >= 0.95 against exact', async () => {
    const { index, errors } = makeIndex('big');
    fill(index, data);
    index.maybeBuild();
    await index.settled();
    expect(errors).toEqual([]);
    expect(index.approximate).toBe(true);
    const flat = Float32Array.from(data.flatMap((v) => [...v]));
    let found = 0;
    for (const q of queries) {
      const truth = new Set(exactSearch(flat, dims, data.keys(), q, 10).map((h) => `d${h.label}`));
      found += index.search(q, 10, all).filter((h) => truth.has(h.docId)).length;
    }
    expect(found / (queries.length * 10)).toBeGreaterThanOrEqual(0.95);
  });

  it('filters by modality and readers without losing recall, and reflects deletes and restores at once', async () => {
    const { index } = makeIndex('filters');
    fill(index, data, (i) => (i % 50 === 0 ? 'audio' : 'text'));
    index.maybeBuild();
    await index.settled();
    const q = queries[1]!;
    const audio = index.search(q, 10, { ...all, modality: 'audio' });
    expect(audio).toHaveLength(10);
    expect(audio.every((h) => Number(h.docId.slice(1)) % 50 === 0)).toBe(true);
    const audioLabels = data.flatMap((_, i) => (i % 50 === 0 ? [i] : []));
    const truth = exactSearch(Float32Array.from(data.flatMap((v) => [...v])), dims, audioLabels, q, 10).map((h) => `d${h.label}`);
    expect(audio.map((h) => h.docId)).toEqual(truth);

    const top = index.search(q, 1, all)[0]!;
    index.putDoc(top.docId, { modality: 'text', readers: ['someone'], deleted: false });
    expect(index.search(q, 10, all).map((h) => h.docId)).not.toContain(top.docId);
    expect(index.search(q, 1, { principal: 'someone' })[0]!.docId).toBe(top.docId);
    index.putDoc(top.docId, { modality: 'text', readers: null, deleted: true });
    expect(index.search(q, 10, all).map((h) => h.docId)).not.toContain(top.docId);
    index.putDoc(top.docId, { modality: 'text', readers: null, deleted: false });
    expect(index.search(q, 1, all)[0]!.docId).toBe(top.docId);
    index.removeDoc(top.docId);
    index.removeDoc(top.docId);
    expect(index.search(q, 10, all).map((h) => h.docId)).not.toContain(top.docId);
    expect(index.size).toBe(data.length - 1);
  });

  it('persists the index and reloads it without a rebuild, catching up writes made since', async () => {
    const first = makeIndex('persist');
    fill(first.index, data);
    first.index.maybeBuild();
    await first.index.settled();
    first.index.removeDoc('d3');
    first.index.close();
    const written = statSync(join(dir, 'persist.hnsw')).mtimeMs;

    const second = makeIndex('persist');
    fill(second.index, data);
    second.index.removeDoc('d3');
    const extra = vectors(5, 1234);
    extra.forEach((v, i) => second.index.putDoc(`x${i}`, { modality: 'image', readers: null, deleted: false }, [{ label: data.length + i, vector: v }]));
    second.index.maybeBuild();
    await second.index.settled();
    expect(second.errors).toEqual([]);
    expect(second.index.approximate).toBe(true);
    expect(statSync(join(dir, 'persist.hnsw')).mtimeMs).toBe(written);
    expect(second.index.search(extra[2]!, 1, all)[0]).toMatchObject({ docId: 'x2' });
    expect(second.index.search(data[3]!, 5, all).map((h) => h.docId)).not.toContain('d3');
    expect(second.index.search(data[4]!, 1, all)[0]!.docId).toBe('d4');
  });

  it('a document with several passages appears once, with its best passage', () => {
    const { index } = makeIndex('passages', 10_000);
    const [a, b, c] = vectors(3, 5);
    index.putDoc('multi', { modality: 'text', readers: null, deleted: false }, [
      { label: 0, vector: a! },
      { label: 1, vector: b! },
    ]);
    index.putDoc('other', { modality: 'text', readers: null, deleted: false }, [{ label: 2, vector: c! }]);
    const hits = index.search(b!, 10, all);
    expect(hits.map((h) => h.docId)).toEqual(['multi', 'other']);
    expect(hits[0]!.label).toBe(1);
    expect(index.search(b!, 10, { ...all, maxDistance: 1e-4 }).map((h) => h.docId)).toEqual(['multi']);
  });
});
