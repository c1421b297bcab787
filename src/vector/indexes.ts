import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { LRUCache } from 'lru-cache';
import type { Scope } from '../domain/scope.js';
import { toFloat32, type DocumentStore } from '../store/documents.js';
import { OwnerVectorIndex, type VectorIndexOptions } from './owner-index.js';

export type IndexSettings = Omit<VectorIndexOptions, 'filePath' | 'embedderId' | 'dims'>;

/**
 * The loaded per-owner vector indexes, least recently used first out. An index is built from LMDB on
 * first use (plus its persisted hnswlib file when there is one) and written back to `DATA_DIR/vectors`
 * when evicted and at shutdown. Only the owner's actor writes to it; searches read it directly.
 */
export class VectorIndexes {
  private readonly cache: LRUCache<string, Promise<OwnerVectorIndex>>;
  private readonly dir: string;

  constructor(
    private readonly docs: DocumentStore,
    private readonly embedder: { id: string; dimensions: number },
    dataDir: string,
    private readonly settings: IndexSettings,
    maxOwners: number,
  ) {
    this.dir = join(dataDir, 'vectors');
    mkdirSync(this.dir, { recursive: true });
    this.cache = new LRUCache({ max: maxOwners, dispose: (loading) => void loading.then((index) => index.close(), () => undefined) });
  }

  get dimensions(): number {
    return this.embedder.dimensions;
  }

  /**
   * The owner's index, loaded from LMDB when it is not in memory. Callers awaiting one load share it, and
   * resume in the order they asked, so writes are applied to the loaded index in their commit order.
   */
  get(scope: Scope): Promise<OwnerVectorIndex> {
    const key = JSON.stringify([scope.tenant, scope.partition, scope.entityId]);
    let loading = this.cache.get(key);
    if (loading) return loading;
    loading = this.load(scope, createHash('sha256').update(key).digest('hex').slice(0, 32));
    this.cache.set(key, loading);
    loading.catch(() => this.cache.delete(key));
    return loading;
  }

  private async load(scope: Scope, name: string): Promise<OwnerVectorIndex> {
    const index = new OwnerVectorIndex({
      ...this.settings,
      dims: this.embedder.dimensions,
      embedderId: this.embedder.id,
      filePath: join(this.dir, name),
    });
    await fillIndex(this.docs, scope, index);
    index.maybeBuild();
    return index;
  }

  /** Waits for loads under way, then writes every changed index to disk and drops them (shutdown). */
  async closeAll(): Promise<void> {
    await Promise.allSettled([...this.cache.values()]);
    this.cache.clear();
  }
}

/**
 * Fills a fresh index with the owner's documents and passages from the store's chunked scans. Writes
 * that commit meanwhile are applied to the index by the owner's actor once the fill has finished.
 */
export async function fillIndex(docs: DocumentStore, scope: Scope, index: OwnerVectorIndex, chunk?: number): Promise<void> {
  const passagesOf = new Map<string, Array<{ label: number; vector: Float32Array }>>();
  await docs.scanPassages(scope, (label, passage) => {
    let list = passagesOf.get(passage.doc_id);
    if (!list) passagesOf.set(passage.doc_id, (list = []));
    list.push({ label, vector: toFloat32(passage.vector) });
  }, chunk);
  await docs.scanDocuments(scope, (doc) => {
    index.putDoc(doc.doc_id, { modality: doc.modality, readers: doc.readers, deleted: doc.deleted_at !== null }, passagesOf.get(doc.doc_id) ?? []);
  }, chunk);
}
