/**
 * The embedding worker thread: hosts the tokenizer and the onnxruntime session, so that inference never
 * runs on the service's event loop. The model loads on the first request. Requests that arrive while a
 * forward pass runs wait in two lanes, and each pass takes a token-capped batch (src/vector/onnx/batches.ts)
 * from the live lane (queries and writes) while it has texts, else from the background lane (re-embedding),
 * so a query waits for at most the pass under way, never behind a re-embedding backlog.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { nextBatch } from './batches.js';
import { SentenceEncoder } from './encoder.js';
import type { EmbedReply, EmbedRequest, LoadedNotice, ModelWorkerOptions } from './protocol.js';
import { TokenCutter } from './tokens.js';

interface Model {
  tokens: TokenCutter;
  encoder: SentenceEncoder;
}

/** A request being served: its vectors fill `out` (texts x dimensions) as its texts go through. */
interface Job {
  id: number;
  out: Float32Array;
  left: number;
  failed: boolean;
}

/** One waiting text of a job. */
interface Waiting {
  job: Job;
  slot: number;
  ids: number[];
}

const options = workerData as ModelWorkerOptions;
const port = parentPort;
if (!port) throw new Error('src/vector/onnx/worker.ts runs as a worker thread only');

let model: Promise<Model> | null = null;
let arrived: EmbedRequest[] = [];
const lanes: Record<'live' | 'background', Waiting[]> = { live: [], background: [] };
let scheduled = false;

port.on('message', (request: EmbedRequest) => {
  arrived.push(request);
  schedule();
});

function schedule(): void {
  if (scheduled) return;
  scheduled = true;
  // A macrotask, so that every request already posted is in `arrived` before the next pass is planned.
  setImmediate(() => void step());
}

/** Takes in what arrived, runs one forward pass, answers the jobs it completed, and goes on while work waits. */
async function step(): Promise<void> {
  try {
    const loaded = await (model ??= load());
    admit(loaded.tokens);
    await pass(loaded.encoder);
  } catch (error) {
    // The model did not load: every request fails with why, now and later (the failure is kept).
    for (const request of arrived) reply({ id: request.id, error: message(error) });
    arrived = [];
  } finally {
    scheduled = false;
    if (arrived.length || lanes.live.length || lanes.background.length) schedule();
  }
}

async function load(): Promise<Model> {
  const started = performance.now();
  const tokens = TokenCutter.load(options.dir, options.maxTokens);
  const encoder = await SentenceEncoder.load(options);
  const notice: LoadedNotice = { loaded: { ms: Math.round(performance.now() - started) } };
  port!.postMessage(notice);
  return { tokens, encoder };
}

function admit(tokens: TokenCutter): void {
  for (const request of arrived) {
    if (request.count) {
      countTokens(tokens, request);
      continue;
    }
    const job: Job = { id: request.id, out: new Float32Array(request.texts.length * options.dimensions), left: request.texts.length, failed: false };
    try {
      const items = request.texts.map((text, slot) => ({ job, slot, ids: tokens.ids(text) }));
      lanes[request.background ? 'background' : 'live'].push(...items);
      if (!items.length) reply({ id: job.id, vectors: job.out });
    } catch (error) {
      reply({ id: job.id, error: message(error) });
    }
  }
  arrived = [];
}

function countTokens(tokens: TokenCutter, request: EmbedRequest): void {
  try {
    reply({ id: request.id, counts: request.texts.map((text) => tokens.count(text)) });
  } catch (error) {
    reply({ id: request.id, error: message(error) });
  }
}

async function pass(encoder: SentenceEncoder): Promise<void> {
  const lane = lanes.live.length ? 'live' : 'background';
  const waiting = lanes[lane];
  const picked = nextBatch(waiting.map((item) => item.ids.length), options.maxBatchTokens);
  if (!picked.length) return;
  const batch = picked.map((index) => waiting[index]!);
  const taken = new Set(picked);
  lanes[lane] = waiting.filter((_, index) => !taken.has(index));
  let vectors: Float32Array[];
  try {
    vectors = await encoder.run(batch.map((item) => item.ids));
  } catch (error) {
    const failed = new Set(batch.map((item) => item.job));
    for (const job of failed) {
      job.failed = true;
      reply({ id: job.id, error: message(error) });
    }
    lanes.live = lanes.live.filter((item) => !item.job.failed);
    lanes.background = lanes.background.filter((item) => !item.job.failed);
    return;
  }
  batch.forEach((item, k) => {
    item.job.out.set(vectors[k]!, item.slot * options.dimensions);
    if (--item.job.left === 0) reply({ id: item.job.id, vectors: item.job.out });
  });
}

function reply(answer: EmbedReply): void {
  if ('vectors' in answer) port!.postMessage(answer, [answer.vectors.buffer as ArrayBuffer]);
  else port!.postMessage(answer);
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
