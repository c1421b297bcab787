import type { Scope } from '../domain/scope.js';
import { conflict } from '../errors.js';
import type { DocumentStore } from '../store/documents.js';
import { removeKeysUnder, scopeKey, type Store } from '../store/lmdb.js';
import type { ActorRegistry } from './registry.js';

/**
 * What an import asks of the node around its writes: the seam where the owner hold (reads of the owner see
 * nothing, writes answer 409, until the import ends) and the bounded owner purge plug in. The import calls
 * `begin` before it reads or writes anything, then exactly one of `release` or `rollBack`.
 */
export interface ImportGuard {
  /** Claims the scope for an import. Throws 409 `conflict` when something else holds it. */
  begin(scope: Scope): Promise<void>;
  /** The import is over and everything it wrote is durable (or it wrote nothing): the claim ends. */
  release(scope: Scope): Promise<void>;
  /** The import failed: everything of the scope is removed, then the claim ends. */
  rollBack(scope: Scope): Promise<void>;
}

/**
 * The stand-in guard until the owner hold and purge exist: claims held in this process's memory (two
 * imports into one scope cannot interleave), and a roll-back that removes what was written through the
 * stores: each document by its hard delete (so the field indexes forget it), then every other key of the
 * scope. It does not hide an import in progress from readers, nor survive a restart.
 */
export class LocalImportGuard implements ImportGuard {
  private readonly claimed = new Set<string>();

  constructor(private readonly deps: { store: Store; docs: DocumentStore; actors: ActorRegistry }) {}

  begin(scope: Scope): Promise<void> {
    const key = JSON.stringify(scopeKey(scope));
    if (this.claimed.has(key)) return Promise.reject(conflict('an import into this owner is already running'));
    this.claimed.add(key);
    return Promise.resolve();
  }

  release(scope: Scope): Promise<void> {
    this.claimed.delete(JSON.stringify(scopeKey(scope)));
    return Promise.resolve();
  }

  async rollBack(scope: Scope): Promise<void> {
    const { store, docs, actors } = this.deps;
    try {
      const actor = actors.actorFor(scope);
      await actor.idle();
      await actor.unload();
      for await (const page of docs.documentPages(scope, ROLLBACK_PAGE)) {
        await store.transaction(() => page.forEach((doc) => docs.hardDelete(scope, doc)));
      }
      await removeKeysUnder(store, scopeKey(scope), ROLLBACK_PAGE * 4);
    } finally {
      await this.release(scope);
    }
  }
}

/** Documents removed per transaction by a roll-back (each with its passages and field index entries). */
const ROLLBACK_PAGE = 256;
