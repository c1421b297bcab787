import { expect } from 'vitest';
import { PARAPHRASE } from '../fixtures/memories.js';
import type { TestService } from './service.js';

export { MEMORIES, PARAPHRASE } from '../fixtures/memories.js';

/** The id of the local model's vectors (src/vector/onnx/model-files.ts). */
export const MODEL_ID = 'all-minilm-l6-v2-384';

export async function addDocs(svc: TestService, entity: string, texts: readonly string[]): Promise<string[]> {
  const ids: string[] = [];
  for (const content of texts) {
    const res = await svc.call('POST', `/v1/documents?entity_id=${entity}`, { body: { content } });
    expect(res.status).toBe(201);
    ids.push(res.body.doc_id as string);
  }
  return ids;
}

export const search = (svc: TestService, entity: string, q: string, options: { k?: number; mode?: string } = {}) =>
  svc.call('GET', `/v1/search?entity_id=${entity}&q=${encodeURIComponent(q)}&k=${options.k ?? 3}${options.mode ? `&mode=${options.mode}` : ''}`);

/** What a user sees while an owner awaits re-embedding: words only, and why. */
export async function expectLexicalWhileForeign(svc: TestService, entity: string): Promise<void> {
  const res = await search(svc, entity, 'green tea');
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ search_mode: 'lexical', search_mode_reason: expect.stringContaining('re-embedded') });
}

/**
 * What a user sees once an owner's passages are all the model's: the default (hybrid) search answers
 * without a reason and puts the tea memory first for a paraphrase, and a semantic search asking for
 * everything returns every document.
 */
export async function expectSemanticOverAll(svc: TestService, entity: string, ids: string[]): Promise<void> {
  const paraphrased = await search(svc, entity, PARAPHRASE);
  expect(paraphrased.status).toBe(200);
  expect(paraphrased.body.search_mode).toBe('hybrid');
  expect(paraphrased.body.search_mode_reason).toBeUndefined();
  expect(paraphrased.body.results[0].doc_id).toBe(ids[0]);
  const all = await search(svc, entity, 'everything', { k: 100, mode: 'semantic' });
  expect(all.status).toBe(200);
  expect(all.body.results.map((r: { doc_id: string }) => r.doc_id).sort()).toEqual([...ids].sort());
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `probe` until `done` holds (a bound only against a hang: the tests assert outcomes, not time). */
export async function until<T>(probe: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch((error: unknown) => error as T);
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out; last value ${value instanceof Error ? value.message : JSON.stringify(value)}`);
    await sleep(25);
  }
}
