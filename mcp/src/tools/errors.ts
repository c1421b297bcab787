import { ApiError, EngramError } from '@engram-memory/sdk';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/**
 * A failure as a tool result (`isError: true`), never a protocol error: the model reads the API's message
 * and code and can correct its call. Secrets (the API key, the HTTP token) are blanked from every text.
 */
export function toolError(error: unknown, secrets: readonly string[]): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: redact(describe(error), secrets) }] };
}

function describe(error: unknown): string {
  if (error instanceof ApiError) {
    const request = error.requestId ? `, request_id ${error.requestId}` : '';
    const retry = error.code === 'rate_limited' ? ' Wait a moment before calling again.' : '';
    return `Engram API error ${error.status} ${error.code}: ${error.message}${request}.${retry}`;
  }
  if (error instanceof ToolInputError) return `Invalid arguments: ${error.message}`;
  if (error instanceof EngramError) return `Engram could not be reached (${error.name}): ${error.message}`;
  // A fault of this server: its message, never its stack.
  return `engram-mcp internal error: ${error instanceof Error ? error.message : String(error)}`;
}

/** Replaces every occurrence of each secret (of 8 characters or more) with `[redacted]`. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret.length >= 8) out = out.split(secret).join('[redacted]');
  return out;
}

/** Thrown by a tool for arguments its schema cannot judge alone (erase_owner's confirmation); nothing was done. */
export class ToolInputError extends Error {
  override name = 'ToolInputError';
}
