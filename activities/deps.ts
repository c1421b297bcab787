import type { ActorRegistry } from '../src/actors/registry.js';
import type { Logger } from '../src/log.js';
import type { QueryService } from '../src/query/service.js';
import type { GraphStore } from '../src/store/graph.js';
import type { Store } from '../src/store/lmdb.js';

/** What activities may use. Writes go through the owner's actor, never straight to the store. */
export interface ActivityDeps {
  actors: ActorRegistry;
  graph: GraphStore;
  store: Store;
  log: Logger;
  /** Field indexes, for the field backfill. */
  fields?: QueryService;
}
