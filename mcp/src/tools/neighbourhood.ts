import type { MemoryGraph } from '@engram-memory/sdk';
import { z } from 'zod';
import { READ_ONLY, defineTool } from './define.js';
import { IdSchema, NameSchema, TimestampSchema } from './inputs.js';
import { EntityRecord, FactRecord, RelationshipRecord } from './outputs.js';
import { entityLine, factLine, relationshipLine } from './render.js';

export const graphNeighbourhood = defineTool({
  name: 'graph_neighbourhood',
  title: 'Graph neighbourhood of an entity',
  description: [
    'Returns the part of this memory\'s graph around one entity: the entities reachable from it within depth hops (1-3, default 1) and every relationship between them, optionally with their active facts.',
    'Use it to answer "who/what is connected to X" or to gather context about a person or project before answering. Get the start entity\'s memory_entity_id with find_entity.',
    'direction: "both" (default), "outgoing" (edges leaving each node) or "incoming". relationship_type follows and returns only edges of that type.',
    'as_of (RFC 3339) shows the graph as the memory knew it then: only edges active at that instant and entities created by then (facts too, with include_facts); an entity that did not exist yet gives an empty graph.',
    'Returns nodes (the start entity first, then by distance), edges and, with include_facts, the facts about those nodes and edges.',
  ].join(' '),
  input: {
    memory_entity_id: IdSchema.describe('The entity to start from.'),
    depth: z.number().int('must be an integer').min(1, 'must be at least 1').max(3, 'must be at most 3').optional().describe('How many hops to follow (1-3, default 1).'),
    direction: z.enum(['both', 'outgoing', 'incoming'], { error: 'must be one of both, outgoing, incoming' }).optional().describe('Which edges to follow: both (default), outgoing or incoming.'),
    relationship_type: NameSchema(128).optional().describe('Follow and return only edges of this type.'),
    as_of: TimestampSchema.optional().describe('Show the graph as known at this instant (RFC 3339 with offset). Default: now.'),
    include_facts: z.boolean().optional().describe('true: also return the facts, active then, about the returned entities and relationships.'),
  },
  output: { nodes: z.array(EntityRecord), edges: z.array(RelationshipRecord), facts: z.array(FactRecord).optional() },
  annotations: READ_ONLY,
  async run({ memory_entity_id, ...params }, owner) {
    const graph = await owner.graph(memory_entity_id, params);
    return { structured: graph, text: renderGraph(memory_entity_id, graph, params.as_of) };
  },
});

function renderGraph(start: string, graph: MemoryGraph, asOf: string | undefined): string {
  const when = asOf ? ` as of ${asOf}` : '';
  if (graph.nodes.length === 0) return `Entity ${start} did not exist yet${when}: the graph is empty.`;
  const names = new Map(graph.nodes.map((n) => [n.memory_entity_id, n.display_name ?? n.memory_entity_id]));
  const lines = [
    `Neighbourhood of ${names.get(start) ?? start}${when}: ${graph.nodes.length} entities, ${graph.edges.length} relationships.`,
    'Entities:',
    ...graph.nodes.map((n) => `- ${entityLine(n)}`),
  ];
  if (graph.edges.length > 0) lines.push('Relationships:', ...graph.edges.map((e) => `- ${relationshipLine(e, names)}`));
  if (graph.facts !== undefined) {
    lines.push(graph.facts.length > 0 ? 'Facts:' : 'Facts: none.', ...graph.facts.map((f) => `- ${factLine(f)}`));
  }
  return lines.join('\n');
}
