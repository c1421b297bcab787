import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ActorRegistry } from '../../src/actors/registry.js';
import { ManualClock } from '../../src/clock.js';
import { GraphStore } from '../../src/store/graph.js';
import { openStore, type Store } from '../../src/store/lmdb.js';

export interface TempGraph {
  store: Store;
  graph: GraphStore;
  clock: ManualClock;
  actors: ActorRegistry;
  close(): Promise<void>;
}

/** A real LMDB store in a temporary directory, with the graph, a manual clock and an actor registry. */
export function openTempGraph(prefix: string): TempGraph {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const store = openStore(dir);
  const graph = new GraphStore(store);
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const actors = new ActorRegistry({ store, graph, clock }, { maxActors: 100, idleMs: 60_000 });
  return {
    store,
    graph,
    clock,
    actors,
    close: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
