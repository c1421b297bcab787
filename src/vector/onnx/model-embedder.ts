import { AppError } from '../../errors.js';
import type { Embedder } from '../embedder.js';
import { RequestThread, spawnWorker } from '../../spawn-worker.js';
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
  private readonly thread: RequestThread<EmbedRequest, EmbedReply>;
  private closed = false;

  constructor(options: ModelEmbedderOptions) {
    const workerData: ModelWorkerOptions = {
      dir: options.dir,
      threads: options.threads,
      maxBatchTokens: options.maxBatchTokens ?? 512,
      maxTokens: MINILM.maxTokens,
      dimensions: MINILM.dimensions,
    };
    this.thread = new RequestThread(() => spawnWorker(import.meta.url, 'worker', workerData), 'the embedding worker', {
      other: (message) => {
        if (!('loaded' in (message as EmbedReply | LoadedNotice))) return false;
        options.onLoaded?.((message as LoadedNotice).loaded.ms);
        return true;
      },
    });
  }

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

  private async ask<T extends Float32Array[] | number[]>(texts: readonly string[], count: boolean, background = false): Promise<T> {
    if (texts.length === 0) return [] as unknown as T;
    if (this.closed) throw new AppError('unavailable', 'the embedding model is shut down');
    const request: EmbedRequest = { id: this.thread.nextRequestId(), texts: [...texts], ...(count ? { count } : {}), ...(background ? { background } : {}) };
    const reply = await this.thread.ask(request);
    if ('error' in reply) throw new AppError('unavailable', `the embedding model failed: ${reply.error}`);
    if ('counts' in reply) return reply.counts as T;
    const vectors: Float32Array[] = [];
    for (let i = 0; i < texts.length; i++) vectors.push(reply.vectors.subarray(i * this.dimensions, (i + 1) * this.dimensions));
    return vectors as T;
  }

  /** Terminates the worker; calls still waiting are rejected. */
  close(): Promise<void> {
    this.closed = true;
    return this.thread.close('the embedding model was shut down');
  }
}
