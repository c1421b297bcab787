import type { StoredDocument } from '../domain/documents.js';
import { unavailable } from '../errors.js';
import type { Key, Store } from '../store/lmdb.js';
import type { QueryEngine } from './engine.js';

/** A resumable walk over a tenant's documents (the document store's `tenantDocuments`). */
export interface TenantDocuments {
  tenantDocuments(tenant: string, after: Key | null, limit: number): { docs: StoredDocument[]; cursor: Key | null };
}

export interface WakeSettings {
  /** Documents indexed per transaction while a tenant wakes (each transaction holds the event loop that long). */
  pageSize: number;
  /** How long a request waits for its tenant to wake before it answers 503 with the progress. */
  waitMs: number;
}

/**
 * Wakes dormant tenants (`storage/tenant-state.ts`): on the first query or declaration, the documents
 * stored while the tenant was dormant are indexed in bounded transactions, resuming from the stored
 * cursor after a restart. One build per tenant at a time; every request of that tenant waits on it.
 */
export class TenantWaker {
  private readonly builds = new Map<string, Promise<void>>();

  constructor(
    private readonly store: Store,
    private readonly engine: QueryEngine,
    private readonly documents: TenantDocuments,
    private readonly settings: WakeSettings,
  ) {}

  /**
   * Resolves once every document of the tenant is indexed. A build that outlasts `waitMs` goes on in
   * the background and the caller gets 503 `unavailable` with `Retry-After` and how far it is.
   */
  async ensureAwake(tenant: string): Promise<void> {
    if (this.engine.states.kind(tenant) === 'awake') return;
    let build = this.builds.get(tenant);
    if (!build) {
      build = this.build(tenant).finally(() => this.builds.delete(tenant));
      this.builds.set(tenant, build);
    }
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<'waiting'>((resolve) => (timer = setTimeout(() => resolve('waiting'), this.settings.waitMs)));
    try {
      if ((await Promise.race([build, waited])) !== 'waiting') return;
    } finally {
      clearTimeout(timer);
    }
    const state = this.engine.states.get(tenant);
    const indexed = state.state === 'building' ? state.indexed : 0;
    throw unavailable(`this tenant's field indexes are being built for its first query (${indexed} documents indexed so far); retry shortly`, undefined, this.settings.waitMs / 1000);
  }

  private async build(tenant: string): Promise<void> {
    const { states, writer } = this.engine;
    for (;;) {
      const done = await this.store.transaction(() => {
        const state = states.get(tenant);
        if (state.state === 'awake') return true;
        const { cursor, indexed } = state.state === 'building' ? state : { cursor: null, indexed: 0 };
        // The first page's transaction also marks the tenant building: every later write is indexed
        // by the hook, every earlier one is found by this walk.
        states.put(tenant, { state: 'building', cursor, indexed });
        const page = this.documents.tenantDocuments(tenant, cursor, this.settings.pageSize);
        writer.writeMany(page.docs);
        states.put(tenant, page.cursor === null ? { state: 'awake' } : { state: 'building', cursor: page.cursor, indexed: indexed + page.docs.length });
        return page.cursor === null;
      }).catch((error: unknown) => {
        // Not committed (a full disk): the state put in memory above never happened.
        states.forget(tenant);
        throw error;
      });
      if (done) return;
    }
  }
}
