import { readFileSync, unwatchFile, watchFile } from 'node:fs';
import type { TenantScope } from '../domain/scope.js';
import { AppError } from '../errors.js';
import type { Logger } from '../log.js';
import { PlacementMap } from './placement-map.js';
import { placementKey } from './scope-key.js';

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

  constructor(
    readonly nodeId: string,
    private readonly file: string | undefined,
    /** Whether a tenant is placed by partition (it has a multi-tenant key) rather than whole. */
    private readonly byPartition: (tenant: string) => boolean,
    private readonly log: Logger,
  ) {
    this.map = file === undefined ? null : PlacementMap.parse(readFileSync(file, 'utf8'));
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

  /** Throws 421 `misdirected` when the scope is hosted by another node. */
  assertHosted(scope: TenantScope): void {
    const host = this.hostOf(scope);
    if (host !== this.nodeId) {
      throw new AppError('misdirected', `this scope is hosted by node ${host}, not by this node (${this.nodeId}); send it through the balancer`);
    }
  }

  /** Reads the file again; throws (keeping the map) when it cannot be read or is invalid. */
  reload(): void {
    if (this.file === undefined) return;
    this.map = PlacementMap.parse(readFileSync(this.file, 'utf8'));
  }

  /** Follows the file: a change is read within a second. */
  watch(): void {
    if (this.file === undefined) return;
    watchFile(this.file, { interval: WATCH_INTERVAL_MS, persistent: false }, (now, before) => {
      if (now.mtimeMs === before.mtimeMs && now.size === before.size) return;
      this.reloadLogged();
    });
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
    if (this.file !== undefined) unwatchFile(this.file);
  }
}
