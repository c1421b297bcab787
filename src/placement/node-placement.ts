import { readFileSync, statSync } from 'node:fs';
import type { TenantScope } from '../domain/scope.js';
import { AppError } from '../errors.js';
import type { Logger } from '../log.js';
import { PlacementMap } from './placement-map.js';
import { placementKey } from './scope-key.js';
import type { ScopeTransfers, TransferState } from './scope-transfers.js';

/** How often a node looks at the placement map file for a change (a move switches a line there). */
const WATCH_INTERVAL_MS = 1000;

/**
 * Where scopes live, as this node sees it (docs/scale-out.md). Without a map this node hosts every scope;
 * with one, the map decides and this node refuses a scope placed elsewhere with 421 `misdirected`, never
 * 404, which would tell an agent the owner does not exist. The map is read at start, again when its file
 * changes, and on SIGHUP; a file that cannot be read or is not valid leaves the map as it was.
 */
export class NodePlacement {
  private map: PlacementMap | null;
  /** The file's modification time and size when it was last read: a change of either is read again. */
  private seen = { mtimeMs: 0, size: 0 };
  private watcher: NodeJS.Timeout | undefined;

  constructor(
    readonly nodeId: string,
    private readonly file: string | undefined,
    /** Whether a tenant is placed by partition (it has a multi-tenant key) rather than whole. */
    readonly byPartition: (tenant: string) => boolean,
    private readonly log: Logger,
    /** Scopes this node is handing over or taking during a move; none without them. */
    readonly transfers?: ScopeTransfers,
  ) {
    this.map = file === undefined ? null : this.read(file);
    if (this.map && !this.map.nodes().includes(nodeId)) {
      log.warn({ node: nodeId, nodes: this.map.nodes() }, 'the placement map places no scope on this node');
    }
  }

  /** The node that hosts a scope. */
  hostOf(scope: TenantScope): string {
    return this.map?.nodeOf(this.keyOf(scope)) ?? this.nodeId;
  }

  /** The text the scope is placed by (`placementKey`): the tenant, or tenant and partition. */
  keyOf(scope: TenantScope): string {
    return placementKey(scope, this.byPartition(scope.tenant));
  }

  /** Where the scope stands on this node in a move (`none` outside one). */
  transferOf(scope: TenantScope): TransferState {
    return this.transfers ? this.transfers.stateOf(this.keyOf(scope)) : 'none';
  }

  /**
   * The scope's state on this node in a move, and whether this node serves it: it hosts it by the map (and is
   * not handing it over), or has just taken it. The scope's key is made once for both.
   */
  standing(scope: TenantScope): { state: TransferState; serves: boolean } {
    if (!this.map) return { state: 'none', serves: true };
    const key = this.keyOf(scope);
    const state = this.transfers?.stateOf(key) ?? 'none';
    return { state, serves: state === 'received' || (state === 'none' && this.map.nodeOf(key) === this.nodeId) };
  }

  /** Whether this node serves the scope (`standing`). */
  serves(scope: TenantScope): boolean {
    return this.standing(scope).serves;
  }

  /** Whether writes to the scope are refused here: it is being handed over. */
  frozen(scope: TenantScope): boolean {
    return this.transferOf(scope) === 'frozen';
  }

  /**
   * Throws 421 `misdirected` unless this node serves the scope: what an activity on owner data checks
   * first, so a job's step runs only where the scope is (its workflow then looks up the node again).
   */
  assertHosted(scope: TenantScope): void {
    const { state, serves } = this.standing(scope);
    if (serves) return;
    if (state === 'frozen') throw new AppError('misdirected', `this scope is being moved from this node (${this.nodeId}) to another`);
    throw this.misdirected(scope);
  }

  /** The 421 for a scope another node hosts. */
  misdirected(scope: TenantScope): AppError {
    return new AppError('misdirected', `this scope is hosted by node ${this.hostOf(scope)}, not by this node (${this.nodeId}); send it through the balancer`);
  }

  /** Reads the file again; throws (keeping the map) when it cannot be read or is invalid. */
  reload(): void {
    if (this.file === undefined) return;
    this.map = this.read(this.file);
  }

  /** Follows the file: a change (a move renames a new map over it) is read within a second. */
  watch(): void {
    const { file } = this;
    if (file === undefined || this.watcher) return;
    this.watcher = setInterval(() => {
      try {
        const { mtimeMs, size } = statSync(file);
        if (mtimeMs !== this.seen.mtimeMs || size !== this.seen.size) this.reloadLogged();
      } catch (error) {
        this.log.warn({ file, reason: error instanceof Error ? error.message : String(error) }, 'placement map not readable; the previous map stays in use');
      }
    }, WATCH_INTERVAL_MS).unref();
  }

  /** Reads and parses the map, remembering the file's state first, so a change made meanwhile is read again. */
  private read(file: string): PlacementMap {
    const { mtimeMs, size } = statSync(file);
    this.seen = { mtimeMs, size };
    return PlacementMap.parse(readFileSync(file, 'utf8'));
  }

  /** `reload`, with the outcome in the log. */
  reloadLogged(): void {
    try {
      this.reload();
      this.log.info({ file: this.file, nodes: this.map?.nodes() }, 'placement map read');
    } catch (error) {
      this.log.warn({ file: this.file, reason: error instanceof Error ? error.message : String(error) }, 'placement map not read; the previous map stays in use');
    }
  }

  close(): void {
    clearInterval(this.watcher);
    this.watcher = undefined;
  }
}
