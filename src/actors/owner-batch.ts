import type { Entity, EntityInput } from '../domain/entities.js';
import type { Fact } from '../domain/facts.js';
import type { Relationship, RelationshipInput } from '../domain/relationships.js';
import type { Scope } from '../domain/scope.js';
import { AppError, assertUnreachable } from '../errors.js';
import type { GraphStore } from '../store/graph.js';
import type { FactChange, FactCommand, OwnerFacts } from './owner-facts.js';
import { GraphCommands, type GraphRecords } from './owner-graph.js';

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
 * Applies a batch's operations inside the owner's write transaction, in two steps, so that a refused
 * batch writes nothing at all (a transaction's puts cannot be taken back once made, and an LMDB child
 * transaction undone would also undo what the store recorded beside them, such as the shapes of new
 * records and new data keys, while memory kept them):
 * 1. decide every operation in order, each on the ones before it: nodes and edges in a buffer over the
 *    store, fact versions staged in the owner's planning view (their tickets pushed to `staged`); the
 *    first operation refused throws an error naming it (`operations[i]: …`);
 * 2. only then put everything decided: the writes asked alongside (the answer kept for an
 *    `Idempotency-Key`), the buffer's final nodes and edges, and every fact version.
 */
export function applyOperations(
  operations: readonly BatchOperation[],
  now: number,
  parts: { scope: Scope; graph: GraphStore; facts: OwnerFacts },
  staged: number[],
  alongside?: (results: BatchResult[]) => () => void,
): BatchResult[] {
  const buffer = new GraphBuffer(parts.graph);
  const commands = new GraphCommands(parts.scope, buffer);
  const factChanges: Array<FactChange<unknown>> = [];
  const results = operations.map((operation, i) => {
    try {
      return decide(operation, now, commands, parts.facts, (change) => {
        staged.push(parts.facts.stagePlanned(change.writes));
        factChanges.push(change);
      });
    } catch (error) {
      throw atOperation(i, error);
    }
  });
  // Writes asked alongside (a kept answer) go first: they read before they write, and nothing is put yet.
  alongside?.(results)();
  buffer.flush(parts.scope);
  parts.facts.putWithin(factChanges);
  return results;
}

function decide(operation: BatchOperation, now: number, graph: GraphCommands, facts: OwnerFacts, stage: (change: FactChange<unknown>) => void): BatchResult {
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
      stage(change);
      return { kind: 'fact', record: change.result };
    }
    case 'retract_fact': {
      const change = facts.retraction(operation.fact_id, now);
      if (change.writes.length > 0) stage(change);
      return { kind: 'fact', record: change.result };
    }
    default:
      return assertUnreachable(operation);
  }
}

/**
 * Nodes and edges a batch has decided, read before the store's, written to it by `flush`: each node once,
 * in its final version, with the version the store held before (what its secondary entries are moved from).
 */
class GraphBuffer implements GraphRecords {
  private readonly entities = new Map<string, { before: Entity | undefined; after: Entity }>();
  private readonly relationships = new Map<string, Relationship>();

  constructor(private readonly graph: GraphStore) {}

  getEntity(scope: Scope, id: string): Entity | undefined {
    return this.entities.get(id)?.after ?? this.graph.getEntity(scope, id);
  }

  /** `previous` is what `getEntity` answered: the stored node the first time, the batch's own after that. */
  putEntity(_scope: Scope, entity: Entity, previous: Entity | undefined): void {
    const id = entity.memory_entity_id;
    const buffered = this.entities.get(id);
    this.entities.set(id, { before: buffered ? buffered.before : previous, after: entity });
  }

  getRelationship(scope: Scope, id: string): Relationship | undefined {
    return this.relationships.get(id) ?? this.graph.getRelationship(scope, id);
  }

  putRelationship(_scope: Scope, edge: Relationship): void {
    this.relationships.set(edge.relationship_id, edge);
  }

  /** Inside the transaction: writes what was decided. */
  flush(scope: Scope): void {
    for (const { before, after } of this.entities.values()) this.graph.putEntity(scope, after, before);
    for (const edge of this.relationships.values()) this.graph.putRelationship(scope, edge);
  }
}

/** The error of operation `i`, naming it; an error not meant for the client passes unchanged. */
export function atOperation(i: number, error: unknown): unknown {
  if (!(error instanceof AppError) || !error.expose) return error;
  return new AppError(error.code, `operations[${i}]: ${error.message}`, { cause: error, headers: error.headers });
}
