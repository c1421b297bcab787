import type { Engram, Owner } from '@engram-memory/sdk';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { rememberMany } from './batch.js';
import type { ToolDefinition } from './define.js';
import { addEntity, addRelationship, findEntity } from './entities.js';
import { redact, toolError } from './errors.js';
import { recallFacts, rememberFact } from './facts.js';
import { eraseOwner, forget } from './forget.js';
import { OwnerIdSchema } from './inputs.js';
import { addMemory, searchMemories } from './memories.js';
import { graphNeighbourhood } from './neighbourhood.js';

/** Whose memory a session's tools use, and what the host allowed it. */
export interface SessionScope {
  engram: Engram;
  /** The session's owner (ENGRAM_OWNER, or the HTTP session's header); undefined only when every call names one. */
  owner: string | undefined;
  partition: string | undefined;
  allowOwnerArgument: boolean;
  allowErase: boolean;
  /** Blanked from every text a tool returns. */
  secrets: readonly string[];
}

/** The tools a session offers: erase_owner only when the host enabled it. */
export function toolsFor(scope: Pick<SessionScope, 'allowErase'>): ToolDefinition[] {
  const tools = [rememberFact, rememberMany, recallFacts, addMemory, searchMemories, findEntity, addEntity, addRelationship, graphNeighbourhood, forget];
  return scope.allowErase ? [...tools, eraseOwner] : tools;
}

/** Registers the session's tools on the server. */
export function registerTools(server: McpServer, scope: SessionScope): void {
  for (const tool of toolsFor(scope)) registerTool(server, tool, scope);
}

function registerTool(server: McpServer, tool: ToolDefinition, scope: SessionScope): void {
  const ownerShape = scope.allowOwnerArgument ? { owner: ownerArgument(scope.owner) } : {};
  // Strict: an argument the schema does not offer (an `owner` the host did not allow, a typo) is refused, not ignored.
  const base = z.strictObject({ ...tool.input, ...ownerShape });
  const refine = tool.refine;
  const inputSchema = refine ? base.superRefine((args, ctx) => refine(args, ctx)) : base;
  server.registerTool(
    tool.name,
    {
      title: tool.title,
      description: tool.description,
      inputSchema,
      outputSchema: z.object(tool.output),
      annotations: { title: tool.title, ...tool.annotations, openWorldHint: false },
    },
    async (args: Record<string, unknown>): Promise<CallToolResult> => {
      try {
        const { owner: named, ...rest } = args as { owner?: string };
        const result = await tool.run(rest, ownerHandle(scope, named));
        return { content: [{ type: 'text', text: redact(result.text, scope.secrets) }], structuredContent: result.structured };
      } catch (error) {
        return toolError(error, scope.secrets);
      }
    },
  );
}

function ownerArgument(sessionOwner: string | undefined) {
  const described = 'Whose memory to use: the id of the owner (user, customer, agent session).';
  return sessionOwner === undefined ? OwnerIdSchema.describe(described) : OwnerIdSchema.optional().describe(`${described} Default: this session's owner.`);
}

function ownerHandle(scope: SessionScope, named: string | undefined): Owner {
  const id = named ?? scope.owner;
  // The schema makes `owner` required when the session has none; this guards the invariant.
  if (id === undefined) throw new Error('no owner: the session has none and the call named none');
  return scope.engram.owner(id, scope.partition === undefined ? {} : { partition: scope.partition });
}
