import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { OwnerActorDeps } from '../../src/actors/owner-actor.js';
import { ActorRegistry } from '../../src/actors/registry.js';
import { ManualClock } from '../../src/clock.js';
import { DocumentStore } from '../../src/store/documents.js';
import { GraphStore } from '../../src/store/graph.js';
import { openStore, type Store } from '../../src/store/lmdb.js';
import { VectorIndexes } from '../../src/vector/indexes.js';
import { LocalEmbedder } from '../../src/vector/local-embedder.js';

export interface TempGraph {
  store: Store;
  graph: GraphStore;
  clock: ManualClock;
  actors: ActorRegistry;
  /** What the actors are built from, for tests that build their own registry. */
  deps: OwnerActorDeps;
  dir: string;
  close(): Promise<void>;
}

/** A real LMDB store in a temporary directory, with the graph, a manual clock and an actor registry. */
export function openTempGraph(prefix: string): TempGraph {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const store = openStore(dir);
  const graph = new GraphStore(store);
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const docs = new DocumentStore(store, []);
  const embedder = new LocalEmbedder();
  const indexes = new VectorIndexes(docs, embedder, dir, { exactMax: 1000, ef: 400, checkpoint: { labels: 1000, ms: 30_000 }, onError: () => undefined });
  const deps: OwnerActorDeps = { store, graph, clock, documents: { docs, embedder, indexes } };
  const actors = new ActorRegistry(deps, { maxActors: 100, idleMs: 60_000 });
  return {
    store,
    graph,
    clock,
    actors,
    deps,
    dir,
    close: async () => {
      await actors.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
