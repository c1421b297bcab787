import type { Metrics } from '../metrics/metrics.js';
import type { ParameterizedContext } from 'koa';
import type { DocumentServices } from '../actors/owner-documents.js';
import type { OwnerErasures } from '../actors/owner-erasures.js';
import type { ImportGuard } from '../actors/import-guard.js';
import type { ActorRegistry } from '../actors/registry.js';
import type { KeyLookup, Principal } from '../auth/keys.js';
import type { Clock } from '../clock.js';
import type { DocumentFieldValues, StoredDocument } from '../domain/documents.js';
import type { Scope } from '../domain/scope.js';
import type { NodePlacement } from '../placement/node-placement.js';
import type { ScopeTransferDeps } from '../placement/transfer-port.js';
import type { JobsPort } from '../jobs/port.js';
import type { ListCursors } from './list-cursors.js';
import type { Logger } from '../log.js';
import type { QueryService } from '../query/service.js';
import type { GraphStore } from '../store/graph.js';
import type { IdempotencyRecords } from '../store/idempotency.js';
import type { Store } from '../store/lmdb.js';
import type { OwnerHold } from '../store/owner-holds.js';
import type { EmbedderStatus } from '../vector/embedders.js';

/** Everything the HTTP layer needs, built by the composition root (`main.ts`) or by tests. */
export interface AppDeps {
  store: Store;
  graph: GraphStore;
  actors: ActorRegistry;
  /** Read per request: a reload (SIGHUP) applies from the next request on. */
  keys: KeyLookup;
  clock: Clock;
  log: Logger;
  /** Keyed digest of an owner id: how the request log names the owner (`log.ts`, `ownerDigester`). */
  ownerDigest: (entityId: string) => string;
  jobs: JobsPort;
  /** The answers kept for `Idempotency-Key` (src/http/idempotency.ts). */
  idempotency: IdempotencyRecords;
  /** The memory lists' cursors (src/http/list-cursors.ts), keyed from the node's master secret. */
  cursors: ListCursors;
  /** Byte limit of ordinary JSON bodies (larger routes set their own). */
  jsonBodyLimit: number;
  /** Largest body of the bulk routes (`POST /v1/documents/batch`). */
  batchBodyLimit: number;
  /** Longest line an import reads (IMPORT_LINE_MAX_BYTES). */
  importLineLimit: number;
  /** Claims a scope around an import and rolls back a failed one (src/actors/import-guard.ts). */
  importGuard: ImportGuard;
  /** How far a fact's `observed_at` may lead the clock (OBSERVED_AT_MAX_SKEW_MS). */
  observedAtMaxSkewMs: number;
  /** Caps of the graph route (GRAPH_MAX_NODES, GRAPH_MAX_EDGES, GRAPH_MAX_FACTS). */
  graphCaps: { nodes: number; edges: number; facts: number };
  /** Documents, media and search; their routes answer 503 when absent. */
  documents?: DocumentServices;
  /** Declared field values of a document for its record (the field indexes provide it). */
  documentFields?: (doc: StoredDocument) => DocumentFieldValues;
  /** Field schema, field indexes and the structured query engine; their routes answer 503 when absent. */
  fields?: QueryService;
  /** Which embedder runs (and whether it is a fallback), for `GET /status`. */
  embedder?: EmbedderStatus;
  /** Owners being erased or imported: reads find nothing of them, writes answer 409 (src/http/scope.ts). */
  holds?: { holdOf(scope: Scope): OwnerHold | undefined };
  /** With a placement map (several nodes): refuses with 421 the scopes another node hosts (src/http/middleware/placement.ts). */
  placement?: NodePlacement;
  /** With a placement map: the operator's routes of a move (src/http/routes/scope-transfer.ts). */
  scopeTransfers?: ScopeTransferDeps;
  /** Origins allowed to call from a browser (CORS_ORIGINS, `*` for any); none when absent or empty. */
  corsOrigins?: readonly string[];
  /** The node's metrics and the key `GET /metrics` takes on this port (src/http/middleware/metrics.ts); absent when off. */
  metrics?: { registry: Metrics; key: string | undefined };
  /** Owners' erasures; `DELETE /v1/memory` answers 503 where absent. */
  erasures?: OwnerErasures;
}

export interface AppState {
  requestId: string;
  principal: Principal;
  /** The app's owner holds, for `ownerScope` (src/http/scope.ts); set before any route runs. */
  holds?: AppDeps['holds'];
  /**
   * Takes `tokens` more from the key's rate limit, or throws 429 (src/http/middleware/rate-limit.ts): set for
   * keys with a limit, for the bulk routes to charge their items. Absent for keys without a limit.
   */
  chargeRate?: (tokens: number) => void;
  /**
   * Under an `Idempotency-Key` (src/http/idempotency.ts): the route's answer, as it will be sent (this status,
   * this body as JSON), turned into the writes that keep it, for the route to run inside its write's own
   * transaction, so the write and its kept answer commit together. A route that does not call it has its
   * answer kept after it, in a commit of its own.
   */
  keepWithWrite?: (status: number, answer: unknown) => () => void;
}

export type AppContext = ParameterizedContext<AppState>;
