import type { Worker } from 'node:worker_threads';
import { spawnWorker } from '../../spawn-worker.js';
import type { DocSet } from '../storage/docset.js';
import type { GroupPartial, GroupsQuery } from './columnar-groups.js';

/** The later half of an aggregation, for the helper thread (`groups-thread.ts`). */
export interface HalfRequest {
  id: number;
  t: string;
  docs: DocSet;
  query: GroupsQuery;
  maxGroups: number;
}

/** The half's groups and the index generation they were read at, or why they could not be gathered. */
export type HalfReply = { id: number; generation: string | undefined; partial: GroupPartial } | { id: number; error: string };

/** Later halves of large aggregations since start, by what became of the helper's: `engram_query_halves_total`. */
export interface HalfOutcomes {
  /** The helper's half was merged into the answer. */
  used: number;
  /** Its snapshot held another index generation (a change committed meanwhile): the query ran again here. */
  changed: number;
  /** The helper failed or died: the query ran again here. */
  failed: number;
}

/**
 * The query engine's helper thread, started on the first large aggregation. The later half of such an
 * aggregation is gathered there while the event loop's thread gathers the earlier one, so an aggregation
 * over a million documents takes both cores of a two-core node. A helper that fails or dies answers what
 * waits with an error (the caller gathers the half itself), and the next aggregation starts a new one. It
 * keeps the process alive only while a request waits for it.
 */
export class GroupsHelper {
  private worker: Worker | null = null;
  private readonly waiting = new Map<number, (reply: HalfReply) => void>();
  private nextId = 1;
  readonly outcomes: HalfOutcomes = { used: 0, changed: 0, failed: 0 };

  /** @param path the LMDB environment's path (the store's, open in this process) */
  constructor(private readonly path: string) {}

  /** Never rejects: a failure is an error reply. */
  gather(request: Omit<HalfRequest, 'id'>): Promise<HalfReply> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      let worker: Worker;
      try {
        worker = this.thread();
        this.waiting.set(id, resolve);
        worker.ref();
        worker.postMessage({ id, ...request } satisfies HalfRequest);
      } catch (error) {
        this.waiting.delete(id);
        resolve({ id, error: error instanceof Error ? error.message : String(error) });
      }
    });
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    this.fail('the query helper thread was shut down');
    if (worker) await worker.terminate();
  }

  private thread(): Worker {
    if (this.worker) return this.worker;
    const worker = spawnWorker(import.meta.url, 'groups-thread', { path: this.path });
    worker.unref();
    worker.on('message', (reply: HalfReply) => this.receive(reply));
    worker.on('error', (error) => this.died(worker, `the query helper thread failed: ${error.message}`));
    worker.on('exit', (code) => this.died(worker, `the query helper thread exited (code ${code})`));
    return (this.worker = worker);
  }

  private receive(reply: HalfReply): void {
    const resolve = this.waiting.get(reply.id);
    this.waiting.delete(reply.id);
    if (this.waiting.size === 0) this.worker?.unref();
    resolve?.(reply);
  }

  private died(worker: Worker, reason: string): void {
    if (this.worker !== worker) return;
    this.worker = null;
    this.fail(reason);
  }

  private fail(reason: string): void {
    const waiting = [...this.waiting];
    this.waiting.clear();
    for (const [id, resolve] of waiting) resolve({ id, error: reason });
  }
}
