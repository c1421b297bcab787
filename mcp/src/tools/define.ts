import type { Owner } from '@engram-memory/sdk';
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';

/** What a tool's work returns: the structured content (matching its output schema) and a text for the model. */
export interface ToolResult<O extends z.ZodRawShape> {
  structured: z.infer<z.ZodObject<O>>;
  text: string;
}

/**
 * One MCP tool: its arguments (a zod shape, refined by `refine` when fields depend on each other), its
 * answer, its hints, and the work it does on the session's owner. The registry (registry.ts) adds the
 * `owner` argument when the server allows it, validates, and turns every failure into a tool error.
 */
export interface ToolDefinition<I extends z.ZodRawShape = z.ZodRawShape, O extends z.ZodRawShape = z.ZodRawShape> {
  name: string;
  title: string;
  /** Written for the model: what it does, when to use it, what it returns, and its temporal meaning. */
  description: string;
  input: I;
  refine?: (args: z.infer<z.ZodObject<I>>, ctx: z.core.$RefinementCtx) => void;
  output: O;
  /** Every tool states all three: readOnlyHint, destructiveHint, idempotentHint (openWorldHint is false for all). */
  annotations: Required<Pick<ToolAnnotations, 'readOnlyHint' | 'destructiveHint' | 'idempotentHint'>>;
  run(args: z.infer<z.ZodObject<I>>, owner: Owner): Promise<ToolResult<O>>;
}

/** Keeps the shapes' types while a list of definitions forgets them. */
export function defineTool<I extends z.ZodRawShape, O extends z.ZodRawShape>(definition: ToolDefinition<I, O>): ToolDefinition {
  return definition as unknown as ToolDefinition;
}

/** Hints of a tool that only reads. */
export const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true } as const;
/** Hints of a tool that adds to memory and replaces nothing without keeping its history. */
export const ADDITIVE = { readOnlyHint: false, destructiveHint: false, idempotentHint: false } as const;
