import type { ParameterizedContext } from 'koa';
import type { DocumentServices } from '../actors/owner-documents.js';
import type { ActorRegistry } from '../actors/registry.js';
import type { KeyRing, Principal } from '../auth/keys.js';
import type { Clock } from '../clock.js';
import type { ConsolidationReport } from '../domain/consolidation.js';
import type { Scope } from '../domain/scope.js';
import type { DocumentFieldValues, StoredDocument } from '../domain/documents.js';
import type { Logger } from '../log.js';
import type { BackfillRef, FieldService } from '../store/fields.js';
import type { GraphStore } from '../store/graph.js';
import type { Store } from '../store/lmdb.js';

/** Readiness of a dependency as `GET /status` reports it. */
export type Readiness = { ready: true; detail?: string } | { ready: false; detail: string };

/**
 * Whatever runs the durable jobs; the HTTP layer only needs its readiness and the job entry points.
 * Every entry point throws AppError `unavailable` (503) quickly when the job engine cannot serve.
 */
export interface JobsPort {
  /** Cached; never waits on the network. */
  readiness(): Readiness;
  /** Runs consolidation for one owner scope and answers with its report once it has completed. */
  consolidate(scope: Scope): Promise<ConsolidationReport>;
  /**
   * Starts (does not await) the backfill workflow of one field version; a running backfill of the same
   * field is cancelled. Absent on nodes that cannot run it: the schema route then answers 503.
   */
  backfillField?(ref: BackfillRef): Promise<void>;
}

/** Everything the HTTP layer needs, built by the composition root (`main.ts`) or by tests. */
export interface AppDeps {
  store: Store;
  graph: GraphStore;
  actors: ActorRegistry;
  keys: KeyRing;
  clock: Clock;
  log: Logger;
  jobs: JobsPort;
  /** Byte limit of ordinary JSON bodies (larger routes set their own). */
  jsonBodyLimit: number;
  /** Documents, media and search; their routes answer 503 when absent. */
  documents?: DocumentServices;
  /** Declared field values of a document for its record (the field indexes provide it). */
  documentFields?: (doc: StoredDocument) => DocumentFieldValues;
  /** Field schema, field indexes and the structured query engine; their routes answer 503 when absent. */
  fields?: FieldService;
}

export interface AppState {
  requestId: string;
  principal: Principal;
}

export type AppContext = ParameterizedContext<AppState>;
