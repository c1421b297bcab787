import { RequestThread, spawnWorker } from '../../spawn-worker.js';
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
  private readonly thread: RequestThread<HalfRequest, HalfReply>;
  readonly outcomes: HalfOutcomes = { used: 0, changed: 0, failed: 0 };

  /** @param path the LMDB environment's path (the store's, open in this process) */
  constructor(path: string) {
    this.thread = new RequestThread(() => spawnWorker(import.meta.url, 'groups-thread', { path }), 'the query helper thread');
  }

  /** Never rejects: a failure is an error reply. */
  async gather(request: Omit<HalfRequest, 'id'>): Promise<HalfReply> {
    const id = this.thread.nextRequestId();
    try {
      return await this.thread.ask({ id, ...request });
    } catch (error) {
      return { id, error: error instanceof Error ? error.message : String(error) };
    }
  }

  close(): Promise<void> {
    return this.thread.close('the query helper thread was shut down');
  }
}
