import type { Fact } from '../../domain/facts.js';
import type { FactIndex } from '../../domain/fact-index.js';
import { walkNeighbourhood, type GraphSource, type Neighbourhood } from '../../domain/graph-walk.js';
import type { Scope } from '../../domain/scope.js';
import { invalidInput, notFound } from '../../errors.js';
import type { GraphStore } from '../../store/graph.js';
import type { AppDeps } from '../context.js';
import type { AppRouter } from '../router.js';
import { GraphQuerySchema } from '../schemas/memory.js';
import { ownerScope } from '../scope.js';
import { entityJson, factJson, relationshipJson } from '../serialize.js';
import { parseQuery } from '../validate.js';

/** `GET /v1/memory/graph`: a node's neighbourhood, now or as of an instant (DECISIONS.md, The graph route). */
export function registerGraphRoute(router: AppRouter, deps: AppDeps): void {
  router.get('/memory/graph', async (ctx) => {
    const { entity_id, partition, memory_entity_id: startId, include_facts, ...walk } = parseQuery(ctx, GraphQuerySchema);
    const scope = ownerScope(ctx, { entity_id, partition }, 'read');
    const start = deps.graph.getEntity(scope, startId);
    if (!start) throw notFound(`memory entity ${startId}`);
    const found = await inSlices(
      walkNeighbourhood(
        start,
        { depth: walk.depth ?? 1, direction: walk.direction ?? 'both', relationshipType: walk.relationship_type, asOf: walk.as_of, caps: deps.graphCaps },
        ownerGraph(deps.graph, scope),
      ),
    );
    const answer = { nodes: found.nodes.map(entityJson), edges: found.edges.map(relationshipJson) };
    if (!include_facts) {
      ctx.body = answer;
      return;
    }
    const facts = await inSlices(factsAbout(found, deps.actors.factsFor(scope), walk.as_of, deps.graphCaps.facts));
    ctx.body = { ...answer, facts: facts.map(factJson) };
  });
}

/** The owner's graph as the walk reads it: through the scope, so no other owner's record is ever reached. */
function ownerGraph(graph: GraphStore, scope: Scope): GraphSource {
  return {
    entity: (id) => graph.getEntity(scope, id),
    relationship: (id) => graph.getRelationship(scope, id),
    edgeIdsTouching: (id) => graph.relationshipIdsTouching(scope, id),
  };
}

/**
 * Runs a walk to its end, letting the event loop turn between its slices: a neighbourhood of thousands of
 * nodes takes a few hundred milliseconds to read, and other owners' requests are served meanwhile. Reads
 * in different slices may see different committed snapshots, as the pages of a list do.
 */
async function inSlices<T>(steps: Generator<void, T>): Promise<T> {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

/** Subjects whose facts are read between two pauses. */
const FACT_SUBJECTS_PER_SLICE = 500;

/** The facts active at `asOf` (or now) about the neighbourhood's nodes, then its edges, each subject's newest observed first. */
function* factsAbout(found: Neighbourhood, index: FactIndex, asOf: number | undefined, cap: number): Generator<void, Fact[]> {
  const subjects = [
    ...found.nodes.map((n) => ({ subject_type: 'entity' as const, subject_id: n.memory_entity_id })),
    ...found.edges.map((e) => ({ subject_type: 'relationship' as const, subject_id: e.relationship_id })),
  ];
  const out: Fact[] = [];
  for (const [i, subject] of subjects.entries()) {
    if (i > 0 && i % FACT_SUBJECTS_PER_SLICE === 0) yield;
    out.push(...index.list({ ...subject, as_of: asOf, limit: cap + 1 - out.length }));
    if (out.length > cap) {
      throw invalidInput(`the neighbourhood has more than ${cap} facts (the cap, GRAPH_MAX_FACTS); ask without include_facts, or for a smaller neighbourhood`);
    }
  }
  return out;
}
