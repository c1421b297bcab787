import type { Scope } from '../domain/scope.js';
import type { NodePlacement } from './node-placement.js';

/** A scope as a move takes it: a whole tenant (partition undefined), or one partition of a tenant placed by partition. */
export interface MoveScope {
  tenant: string;
  partition?: string | null;
}

/** What the operator's routes of a move need from the node (composed in src/server.ts). */
export interface ScopeTransferDeps {
  placement: NodePlacement;
  /** Owners of the scope this node holds records of, after `after`, at most `limit`. */
  owners(scope: MoveScope, after: Scope | null, limit: number): Scope[];
  /** Owners of the scope with work in flight. */
  busyOwners(scope: MoveScope): number;
  /** Owners of the scope being erased or imported: a move waits until there are none. */
  heldOwners(scope: MoveScope): number;
  /** Removes this node's copy of the scope: every owner's records and the scope's declared fields. */
  release(scope: MoveScope): Promise<{ owners: number; fields: number }>;
  jsonBodyLimit: number;
}
