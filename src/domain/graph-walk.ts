import { invalidInput } from '../errors.js';
import type { Entity } from './entities.js';
import type { Relationship } from './relationships.js';
import { activeAt } from './time.js';

export const GRAPH_DIRECTIONS = ['both', 'outgoing', 'incoming'] as const;
export type GraphDirection = (typeof GRAPH_DIRECTIONS)[number];

export const GRAPH_MAX_DEPTH = 3;

/** Edge records a walk reads between two pauses: ~15 ms of reading on the measured machine (bench/graph.ts). */
export const WALK_SLICE_EDGES = 1000;

/** How far a neighbourhood may grow before the walk stops with a 400 naming the cap (configurable). */
export interface GraphCaps {
  nodes: number;
  edges: number;
}

export interface GraphWalk {
  /** Hops from the start node, 1 to GRAPH_MAX_DEPTH. */
  depth: number;
  /** Which way an edge may be followed from the node the walk stands on; `both` by default. */
  direction: GraphDirection;
  /** Only edges of this type are followed and returned. */
  relationshipType?: string | undefined;
  /** Transaction time: edges active then, nodes created by then. Without it, the active edges now. */
  asOf?: number | undefined;
  caps: GraphCaps;
}

/**
 * Where the walk reads the graph: a node by id, an edge by id, and the ids of every edge (any state) from
 * or to a node. Ids first, so that an edge already known from its other end is not read again.
 */
export interface GraphSource {
  entity(id: string): Entity | undefined;
  relationship(id: string): Relationship | undefined;
  edgeIdsTouching(id: string): Iterable<string>;
}

export interface Neighbourhood {
  /** The start node first, then by distance from it; at one distance, in the order they were reached. */
  nodes: Entity[];
  /** Every eligible edge whose two ends are both returned nodes, in the order they were found. */
  edges: Relationship[];
}

/**
 * The neighbourhood of `start`: the nodes reached over at most `depth` eligible edges (of the type, active
 * at `asOf` or now), each followed only in the walk's direction, and then every eligible edge between two
 * reached nodes in either direction (an edge between two nodes at the boundary included). A node created
 * after `asOf` did not exist then: it is neither returned nor walked through, and when it is the start node
 * the neighbourhood is empty.
 *
 * Every reached node's edge ids are read once, after it is reached, so an edge between two reached nodes is
 * seen from whichever of its ends is read last; an edge already returned or found ineligible is not opened
 * again. The caps are checked as the result grows, so a walk that would pass one stops there instead of
 * building the whole answer.
 *
 * A generator: it pauses (yields) after every WALK_SLICE_EDGES edge records opened, so that a caller on an
 * event loop can let other work run between slices of a large neighbourhood; its return value is the answer.
 */
export function* walkNeighbourhood(start: Entity, walk: GraphWalk, source: GraphSource): Generator<void, Neighbourhood> {
  const exists = (node: Entity) => walk.asOf === undefined || node.created_at <= walk.asOf;
  if (!exists(start)) return { nodes: [], edges: [] };
  const eligible = (edge: Relationship) =>
    (walk.relationshipType === undefined || edge.relationship_type === walk.relationshipType) &&
    (walk.asOf === undefined ? edge.invalid_from === null : activeAt(edge, walk.asOf));
  const nodes = new Map<string, Entity>([[start.memory_entity_id, start]]);
  const edges = new Map<string, Relationship>();
  const ineligible = new Set<string>();
  let frontier = [start.memory_entity_id];
  let read = 0;
  for (let distance = 0; distance <= walk.depth && frontier.length > 0; distance++) {
    const next: string[] = [];
    for (const id of frontier) {
      for (const edgeId of source.edgeIdsTouching(id)) {
        if (edges.has(edgeId) || ineligible.has(edgeId)) continue;
        if (++read % WALK_SLICE_EDGES === 0) yield;
        const edge = source.relationship(edgeId);
        if (edge === undefined) continue;
        if (!eligible(edge)) {
          ineligible.add(edgeId);
          continue;
        }
        const other = edge.from_entity_id === id ? edge.to_entity_id : edge.from_entity_id;
        if (!nodes.has(other) && distance < walk.depth && follows(edge, id, walk.direction)) {
          const node = source.entity(other);
          if (node && exists(node)) {
            nodes.set(other, node);
            next.push(other);
            if (nodes.size > walk.caps.nodes) throw capExceeded('nodes', walk.caps.nodes);
          }
        }
        if (nodes.has(other)) {
          edges.set(edge.relationship_id, edge);
          if (edges.size > walk.caps.edges) throw capExceeded('edges', walk.caps.edges);
        }
      }
    }
    frontier = next;
  }
  return { nodes: [...nodes.values()], edges: [...edges.values()] };
}

/** Whether the walk, standing on `at`, may cross `edge` in `direction`. */
function follows(edge: Relationship, at: string, direction: GraphDirection): boolean {
  if (direction === 'outgoing') return edge.from_entity_id === at;
  if (direction === 'incoming') return edge.to_entity_id === at;
  return true;
}

function capExceeded(what: 'nodes' | 'edges', cap: number) {
  const setting = what === 'nodes' ? 'GRAPH_MAX_NODES' : 'GRAPH_MAX_EDGES';
  return invalidInput(
    `the neighbourhood has more than ${cap} ${what} (the cap, ${setting}); ask for a smaller depth, one relationship_type or one direction`,
  );
}
