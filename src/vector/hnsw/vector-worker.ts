import { AppError } from '../../errors.js';
import type { LabelBuffers } from '../label-table.js';
import { RequestThread, spawnWorker } from '../../spawn-worker.js';
import type { GraphEvent, GraphSearch, Neighbours, OpenGraph, WorkerReply, WorkerRequest } from './protocol.js';

/** Who hears about one owner's index in the worker. */
export interface GraphListener {
  event(event: GraphEvent): void;
  /** The worker died: the index is gone and must be opened again (from its last checkpoint). */
  lost(reason: string): void;
}

/** What answers a request: its value, or why it failed. */
type Answer = Exclude<WorkerReply, GraphEvent>;

/**
 * The node's one vector worker thread (src/vector/hnsw/worker.ts), started on the first large owner. It
 * keeps the process alive only while a request waits for it. A worker that dies fails what waits and
 * tells every owner's index, which opens again from its last checkpoint on its next write or search.
 */
export class VectorWorker {
  private readonly listeners = new Map<number, GraphListener>();
  private nextOwner = 1;
  private readonly thread = new RequestThread<WorkerRequest & { id: number }, Answer>(() => spawnWorker(import.meta.url, 'worker', null), 'the vector worker', {
    other: (message) => {
      const reply = message as WorkerReply;
      if (!('event' in reply)) return false;
      this.listeners.get(reply.owner)?.event(reply);
      return true;
    },
    lost: (reason) => {
      const listeners = [...this.listeners.values()];
      this.listeners.clear();
      for (const listener of listeners) listener.lost(reason);
    },
  });

  /** Opens an owner's index in the worker: its checkpoint file is loaded, or a new one is built from the buffers. */
  open(spec: Omit<OpenGraph, 'owner'>, listener: GraphListener): RemoteGraph {
    const owner = this.nextOwner++;
    this.listeners.set(owner, listener);
    this.post({ type: 'open', owner, ...spec });
    return new RemoteGraph(this, owner);
  }

  /** Stops the thread (after every owner's index was closed: closing writes their files). */
  close(): Promise<void> {
    return this.thread.close('the vector worker was shut down');
  }

  post(request: WorkerRequest): void {
    this.thread.post(request);
  }

  async ask<T>(request: WorkerRequest & { id: number }): Promise<T> {
    const reply = await this.thread.ask(request);
    if ('error' in reply) throw new AppError('internal', `vector worker: ${reply.error}`);
    return reply.value as T;
  }

  nextRequestId(): number {
    return this.thread.nextRequestId();
  }

  forget(owner: number): void {
    this.listeners.delete(owner);
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
