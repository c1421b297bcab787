import type { Worker } from 'node:worker_threads';
import { AppError } from '../../errors.js';
import type { Embedder } from '../embedder.js';
import { spawnWorker } from '../../spawn-worker.js';
import { MINILM } from './model-files.js';
import type { EmbedReply, EmbedRequest, LoadedNotice, ModelWorkerOptions } from './protocol.js';

export interface ModelEmbedderOptions {
  /** The model folder (checked beforehand with `modelFolderProblem`). */
  dir: string;
  /** onnxruntime intra-op threads (1 leaves the other cores to HTTP and LMDB). */
  threads: number;
  /** Cap on texts x padded length of one forward pass (512 measured fastest and smallest on 2 cores). */
  maxBatchTokens?: number;
  /** Told once how long the first use took to load the model. */
  onLoaded?: (ms: number) => void;
}

interface Pending {
  count: number;
  resolve: (answer: Float32Array[] | number[]) => void;
  reject: (error: Error) => void;
}

/**
 * all-MiniLM-L6-v2 as an `Embedder`: the model runs in a worker thread (src/vector/onnx/worker.ts), never on
 * the event loop. The thread starts and the model loads (about 0.3-0.4 s) on the first `embed`, so startup
 * is not delayed. Failures reach the caller as rejections (503 `unavailable`); a thread that died is started
 * again by the next call. `close` terminates it.
 */
export class ModelEmbedder implements Embedder {
  readonly id = MINILM.id;
  readonly dimensions = MINILM.dimensions;
  readonly maxTokens = MINILM.maxTokens;
  private worker: Worker | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private closed = false;

  constructor(private readonly options: ModelEmbedderOptions) {}

  embed(texts: readonly string[]): Promise<Float32Array[]> {
    return this.ask<Float32Array[]>(texts, false);
  }

  /** As `embed`, served only while no query or write waits for the model (re-embedding). */
  embedInBackground(texts: readonly string[]): Promise<Float32Array[]> {
    return this.ask<Float32Array[]>(texts, false, true);
  }

  /** Tokens of each text before the model's cut at `maxTokens` (counted in the worker, by the model's tokenizer). */
  countTokens(texts: readonly string[]): Promise<number[]> {
    return this.ask<number[]>(texts, true);
  }

  private ask<T extends Float32Array[] | number[]>(texts: readonly string[], count: boolean, background = false): Promise<T> {
    if (texts.length === 0) return Promise.resolve([] as unknown as T);
    if (this.closed) return Promise.reject(new AppError('unavailable', 'the embedding model is shut down'));
    const worker = this.worker ?? this.start();
    const request: EmbedRequest = { id: this.nextId++, texts: [...texts], ...(count ? { count } : {}), ...(background ? { background } : {}) };
    return new Promise<T>((resolve, reject) => {
      this.pending.set(request.id, { count: texts.length, resolve: resolve as Pending['resolve'], reject });
      worker.ref();
      worker.postMessage(request);
    });
  }

  /** Terminates the worker; calls still waiting are rejected. */
  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    this.worker = null;
    this.failAll('the embedding model was shut down');
    if (worker) await worker.terminate();
  }

  private start(): Worker {
    const workerData: ModelWorkerOptions = {
      dir: this.options.dir,
      threads: this.options.threads,
      maxBatchTokens: this.options.maxBatchTokens ?? 512,
      maxTokens: MINILM.maxTokens,
      dimensions: MINILM.dimensions,
    };
    const worker = spawnWorker(import.meta.url, 'worker', workerData);
    this.worker = worker;
    worker.on('message', (message: EmbedReply | LoadedNotice) => this.receive(message));
    worker.on('error', (error) => {
      if (this.worker === worker) this.worker = null;
      this.failAll(`the embedding worker failed: ${error.message}`);
    });
    worker.on('exit', (code) => {
      if (this.worker !== worker) return;
      this.worker = null;
      this.failAll(`the embedding worker exited (code ${code})`);
    });
    return worker;
  }

  private receive(message: EmbedReply | LoadedNotice): void {
    if ('loaded' in message) return this.options.onLoaded?.(message.loaded.ms);
    const waiter = this.pending.get(message.id);
    if (!waiter) return;
    this.pending.delete(message.id);
    if (this.pending.size === 0) this.worker?.unref();
    if ('error' in message) return waiter.reject(new AppError('unavailable', `the embedding model failed: ${message.error}`));
    if ('counts' in message) return waiter.resolve(message.counts);
    const vectors: Float32Array[] = [];
    for (let i = 0; i < waiter.count; i++) vectors.push(message.vectors.subarray(i * this.dimensions, (i + 1) * this.dimensions));
    waiter.resolve(vectors);
  }

  private failAll(reason: string): void {
    const waiters = [...this.pending.values()];
    this.pending.clear();
    for (const waiter of waiters) waiter.reject(new AppError('unavailable', reason));
  }
}
