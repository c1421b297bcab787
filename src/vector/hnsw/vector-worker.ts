import type { Worker } from 'node:worker_threads';
import { AppError } from '../../errors.js';
import type { LabelBuffers } from '../label-table.js';
import { spawnWorker } from '../../spawn-worker.js';
import type { GraphEvent, GraphSearch, Neighbours, OpenGraph, WorkerReply, WorkerRequest } from './protocol.js';

/** Who hears about one owner's index in the worker. */
export interface GraphListener {
  event(event: GraphEvent): void;
  /** The worker died: the index is gone and must be opened again (from its last checkpoint). */
  lost(reason: string): void;
}

interface Waiter {
  resolve(value: unknown): void;
  reject(error: Error): void;
}

/**
 * The node's one vector worker thread (src/vector/hnsw/worker.ts), started on the first large owner. It
 * keeps the process alive only while a request waits for it. A worker that dies fails what waits and
 * tells every owner's index, which opens again from its last checkpoint on its next write or search.
 */
export class VectorWorker {
  private worker: Worker | null = null;
  private readonly waiting = new Map<number, Waiter>();
  private readonly listeners = new Map<number, GraphListener>();
  private nextId = 1;
  private nextOwner = 1;

  /** Opens an owner's index in the worker: its checkpoint file is loaded, or a new one is built from the buffers. */
  open(spec: Omit<OpenGraph, 'owner'>, listener: GraphListener): RemoteGraph {
    const owner = this.nextOwner++;
    this.listeners.set(owner, listener);
    this.post({ type: 'open', owner, ...spec });
    return new RemoteGraph(this, owner);
  }

  /** Stops the thread (after every owner's index was closed: closing writes their files). */
  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    this.fail('the vector worker was shut down');
    if (worker) await worker.terminate();
  }

  post(request: WorkerRequest): void {
    this.thread().postMessage(request);
  }

  ask<T>(request: WorkerRequest & { id: number }): Promise<T> {
    const worker = this.thread();
    return new Promise<T>((resolve, reject) => {
      this.waiting.set(request.id, { resolve: resolve as Waiter['resolve'], reject });
      worker.ref();
      worker.postMessage(request);
    });
  }

  nextRequestId(): number {
    return this.nextId++;
  }

  forget(owner: number): void {
    this.listeners.delete(owner);
  }

  private thread(): Worker {
    if (this.worker) return this.worker;
    const worker = spawnWorker(import.meta.url, 'worker', null);
    worker.unref();
    worker.on('message', (reply: WorkerReply) => this.receive(reply));
    worker.on('error', (error) => this.died(worker, `the vector worker failed: ${error.message}`));
    worker.on('exit', (code) => this.died(worker, `the vector worker exited (code ${code})`));
    return (this.worker = worker);
  }

  private receive(reply: WorkerReply): void {
    if ('event' in reply) return this.listeners.get(reply.owner)?.event(reply);
    const waiter = this.waiting.get(reply.id);
    if (!waiter) return;
    this.waiting.delete(reply.id);
    if (this.waiting.size === 0) this.worker?.unref();
    if ('error' in reply) waiter.reject(new AppError('internal', `vector worker: ${reply.error}`));
    else waiter.resolve(reply.value);
  }

  private died(worker: Worker, reason: string): void {
    if (this.worker !== worker) return;
    this.worker = null;
    this.fail(reason);
    const listeners = [...this.listeners.values()];
    this.listeners.clear();
    for (const listener of listeners) listener.lost(reason);
  }

  private fail(reason: string): void {
    const waiters = [...this.waiting.values()];
    this.waiting.clear();
    for (const waiter of waiters) waiter.reject(new AppError('unavailable', reason));
  }
}

/** One owner's index in the vector worker, as its owner's actor reaches it; messages keep their order. */
export class RemoteGraph {
  constructor(
    private readonly worker: VectorWorker,
    readonly owner: number,
  ) {}

  /** The owner's buffers grew: the worker reads the new ones from here on. */
  buffers(buffers: LabelBuffers): void {
    this.worker.post({ type: 'buffers', owner: this.owner, buffers });
  }

  /** Labels below `upTo` exist: the worker adds the live ones. */
  publish(upTo: number): void {
    this.worker.post({ type: 'publish', owner: this.owner, upTo });
  }

  /** Labels below the published mark that became live: added at once. */
  revive(labels: number[]): void {
    this.worker.post({ type: 'revive', owner: this.owner, labels });
  }

  remove(labels: number[]): void {
    if (labels.length) this.worker.post({ type: 'delete', owner: this.owner, labels });
  }

  search(request: Omit<GraphSearch, 'owner'>): Promise<Neighbours> {
    return this.worker.ask({ type: 'search', id: this.worker.nextRequestId(), owner: this.owner, ...request });
  }

  /** Resolves once every label published so far is in hnswlib. */
  settled(): Promise<void> {
    return this.worker.ask({ type: 'settled', id: this.worker.nextRequestId(), owner: this.owner });
  }

  /** Writes what changed since the last checkpoint (unless `persist` is false) and drops the index from the worker. */
  async close(persist = true): Promise<void> {
    try {
      await this.worker.ask({ type: 'close', id: this.worker.nextRequestId(), owner: this.owner, persist });
    } finally {
      this.worker.forget(this.owner);
    }
  }
}
