import type { Entity, EntityInput } from '../domain/entities.js';
import type { Fact } from '../domain/facts.js';
import type { Relationship, RelationshipInput } from '../domain/relationships.js';
import { AppError, assertUnreachable } from '../errors.js';
import type { FactCommand, OwnerFacts } from './owner-facts.js';
import type { OwnerGraph } from './owner-graph.js';

/** One operation of a batch of memory writes (`POST /v1/memory/batch`), its ids already minted. */
export type BatchOperation =
  | { op: 'upsert_entity'; input: EntityInput }
  | { op: 'upsert_relationship'; input: RelationshipInput }
  | { op: 'assert_fact'; command: FactCommand }
  | { op: 'retract_fact'; fact_id: string }
  | { op: 'retract_relationship'; relationship_id: string };

/** What an operation stored (or found, for a repeated retraction), tagged by its kind for the answer. */
export type BatchResult = { kind: 'entity'; record: Entity } | { kind: 'relationship'; record: Relationship } | { kind: 'fact'; record: Fact };

/**
 * Applies a batch's operations in order, inside the owner's write transaction: each decides on every
 * earlier write, its own batch's included (a node upserted by operation 3 is an endpoint for operation 4;
 * a fact asserted by operation 5 is superseded by operation 6). Fact versions are staged in the owner's
 * planning view as they are decided, their tickets pushed to `staged`. The first operation refused throws
 * an error naming it (`operations[i]: …`); the caller's transaction then undoes every write.
 */
export function applyOperations(
  operations: readonly BatchOperation[],
  now: number,
  parts: { graph: OwnerGraph; facts: OwnerFacts },
  staged: number[],
): BatchResult[] {
  return operations.map((operation, i) => {
    try {
      return applyOne(operation, now, parts, staged);
    } catch (error) {
      throw atOperation(i, error);
    }
  });
}

function applyOne(operation: BatchOperation, now: number, { graph, facts }: { graph: OwnerGraph; facts: OwnerFacts }, staged: number[]): BatchResult {
  switch (operation.op) {
    case 'upsert_entity':
      return { kind: 'entity', record: graph.upsertEntity(operation.input, now) };
    case 'upsert_relationship':
      return { kind: 'relationship', record: graph.upsertRelationship(operation.input, now) };
    case 'retract_relationship':
      return { kind: 'relationship', record: graph.retractRelationship(operation.relationship_id, now) };
    case 'assert_fact': {
      graph.requireSubject(operation.command.subject_type, operation.command.subject_id);
      const change = facts.assertion(operation.command, now);
      staged.push(facts.stageWithin(change.writes));
      return { kind: 'fact', record: change.result };
    }
    case 'retract_fact': {
      const change = facts.retraction(operation.fact_id, now);
      if (change.writes.length > 0) staged.push(facts.stageWithin(change.writes));
      return { kind: 'fact', record: change.result };
    }
    default:
      return assertUnreachable(operation);
  }
}

/** The error of operation `i`, naming it; an error not meant for the client passes unchanged. */
export function atOperation(i: number, error: unknown): unknown {
  if (!(error instanceof AppError) || !error.expose) return error;
  return new AppError(error.code, `operations[${i}]: ${error.message}`, { cause: error, headers: error.headers });
}
