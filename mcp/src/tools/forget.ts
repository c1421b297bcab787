import { z } from 'zod';
import { defineTool } from './define.js';
import { ToolInputError } from './errors.js';
import { IdSchema, OwnerIdSchema } from './inputs.js';
import { FactRecord, RelationshipRecord } from './outputs.js';
import { factLine, relationshipLine } from './render.js';

export const forget = defineTool({
  name: 'forget',
  title: 'Forget a fact or a relationship',
  description: [
    'Retracts one fact (fact_id) or one relationship (relationship_id): from now on it is no longer active, so recall_facts and graph_neighbourhood stop returning it.',
    'History is kept: its invalid_from is set to now, and as_of queries for earlier instants still see it. Use it when the user says something is no longer true or asks you to forget it;',
    'to change a value, prefer remember_fact, which supersedes the old one. Give exactly one of fact_id and relationship_id. Forgetting something already forgotten changes nothing.',
    'Returns the retracted record with its invalid_from.',
  ].join(' '),
  input: {
    fact_id: IdSchema.optional().describe('The fact to retract (from remember_fact or recall_facts).'),
    relationship_id: IdSchema.optional().describe('The relationship to retract (from add_relationship or graph_neighbourhood).'),
  },
  refine(args, ctx) {
    if ((args.fact_id === undefined) === (args.relationship_id === undefined)) {
      ctx.addIssue({ code: 'custom', path: [], message: 'give exactly one of fact_id and relationship_id' });
    }
  },
  output: { fact: FactRecord.optional(), relationship: RelationshipRecord.optional() },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
  async run(args, owner) {
    if (args.fact_id !== undefined) {
      const fact = await owner.facts.retract(args.fact_id);
      return { structured: { fact }, text: `Forgot ${factLine(fact)}. Its history is kept.` };
    }
    const relationship = await owner.relationships.retract(args.relationship_id as string);
    return { structured: { relationship }, text: `Forgot ${relationshipLine(relationship)}. Its history is kept.` };
  },
});

/** Offered only when ENGRAM_MCP_ALLOW_ERASE=true: it destroys the whole memory, history included. */
export const eraseOwner = defineTool({
  name: 'erase_owner',
  title: 'Erase this whole memory',
  description: [
    'Permanently erases the whole memory of the owner: every fact with its history, entity, relationship and memory text. It cannot be undone.',
    'Use it only when the user explicitly asks for all of their data to be deleted. As a check, confirm_owner must repeat the owner id exactly.',
    'Returns an erasure receipt (receipt_id, state); from the call on, the memory reads as empty and writes are refused until the erasure completes.',
  ].join(' '),
  input: {
    confirm_owner: OwnerIdSchema.describe('The id of the owner whose memory is erased, repeated as a confirmation.'),
  },
  output: { receipt_id: z.string(), state: z.enum(['pending', 'running', 'complete', 'failed']) },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
  async run(args, owner) {
    if (args.confirm_owner !== owner.id) {
      throw new ToolInputError(`confirm_owner must repeat the owner id of this memory exactly, got ${JSON.stringify(args.confirm_owner)}; nothing was erased`);
    }
    const receipt = await owner.erase();
    return { structured: { receipt_id: receipt.receipt_id, state: receipt.state }, text: `Erasure of ${owner.id} accepted: receipt ${receipt.receipt_id}, state ${receipt.state}.` };
  },
});
