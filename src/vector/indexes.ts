import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { LRUCache } from 'lru-cache';
import type { Scope } from '../domain/scope.js';
import type { DocumentStore } from '../store/documents.js';
import { OwnerVectorIndex, type VectorIndexOptions } from './owner-index.js';

export type IndexSettings = Omit<VectorIndexOptions, 'filePath' | 'embedderId' | 'dims'>;

/**
 * The loaded per-owner vector indexes, least recently used first out. An index is built from LMDB on
 * first use (plus its persisted hnswlib file when there is one) and written back to `DATA_DIR/vectors`
 * when evicted and at shutdown. Only the owner's actor writes to it; searches read it directly.
 */
export class VectorIndexes {
  private readonly cache: LRUCache<string, OwnerVectorIndex>;
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
    this.cache = new LRUCache({ max: maxOwners, dispose: (index) => index.close() });
  }

  get dimensions(): number {
    return this.embedder.dimensions;
  }

  /** The owner's index, loaded from LMDB when it is not in memory. */
  get(scope: Scope): OwnerVectorIndex {
    const key = JSON.stringify([scope.tenant, scope.partition, scope.entityId]);
    let index = this.cache.get(key);
    if (index) return index;
    const name = createHash('sha256').update(key).digest('hex').slice(0, 32);
    index = new OwnerVectorIndex({
      ...this.settings,
      dims: this.embedder.dimensions,
      embedderId: this.embedder.id,
      filePath: join(this.dir, name),
    });
    this.docs.loadInto(scope, index);
    index.maybeBuild();
    this.cache.set(key, index);
    return index;
  }

  /** Writes every changed index to disk and drops them (shutdown). */
  closeAll(): void {
    this.cache.clear();
  }
}
