import { ApiError, ConnectionError, TimeoutError } from '@engram-memory/sdk';
import type { Context, Next } from 'koa';
import type { z } from 'zod';

/** Thrown when the app itself refuses a request; `code` is a snake_case machine code, the message is shown. */
export class AppError extends Error {
  override name = 'AppError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }

  /** Thrown when an input does not pass its schema: the message names each field and its rule. */
  static invalidInput(error: z.ZodError, where: string): AppError {
    const problems = error.issues.map((issue) => {
      const field = issue.path.length > 0 ? issue.path.join('.') : where;
      return `${field}: ${issue.message}`;
    });
    return new AppError(400, 'invalid_input', problems.join('; '));
  }
}

/** The answer an error becomes: the contract's error body `{ error, code, request_id }`. */
export interface ErrorAnswer {
  status: number;
  body: { error: string; code: string; request_id: string };
}

/**
 * Maps any error to its answer. Engram's errors keep their status, code and message (the service never
 * puts a key in them); a connection failure is 502; anything unexpected is a bare 500, so that no stack
 * or configuration reaches the browser.
 */
export function errorAnswer(error: unknown, requestId: string, engramBaseUrl: string): ErrorAnswer {
  const answer = (status: number, code: string, message: string) => ({ status, body: { error: message, code, request_id: requestId } });
  if (error instanceof AppError) return answer(error.status, error.code, error.message);
  if (error instanceof ApiError) return { status: error.status, body: { error: error.message, code: error.code, request_id: error.requestId ?? requestId } };
  if (error instanceof TimeoutError) return answer(504, 'engram_timeout', `Engram at ${engramBaseUrl} did not answer in time`);
  if (error instanceof ConnectionError) return answer(502, 'engram_unreachable', `Engram at ${engramBaseUrl} cannot be reached: is it running? (${error.message})`);
  const status = typeof (error as { status?: unknown })?.status === 'number' ? (error as { status: number }).status : 500;
  // Koa's own client errors (a malformed JSON body, a body over the limit) are safe to show.
  if (status >= 400 && status < 500 && (error as { expose?: unknown }).expose === true) {
    const codes: Record<number, string> = { 403: 'forbidden', 404: 'not_found', 405: 'method_not_allowed', 413: 'payload_too_large' };
    const code = codes[status] ?? 'invalid_input';
    return answer(status, code, (error as Error).message);
  }
  return answer(500, 'internal', 'The app failed to answer; its log says why');
}

/** Koa middleware: a request id on every answer, and every error answered as `{ error, code, request_id }`. */
export function errorMiddleware(engramBaseUrl: string, log: (line: string) => void) {
  return async (ctx: Context, next: Next): Promise<void> => {
    const requestId = crypto.randomUUID();
    ctx.state.requestId = requestId;
    ctx.set('X-Request-Id', requestId);
    try {
      await next();
    } catch (error) {
      const { status, body } = errorAnswer(error, requestId, engramBaseUrl);
      // The log names the route and the error's class, never a body: documents are the owner's content.
      if (status >= 500) log(`${ctx.method} ${ctx.path} → ${status} ${body.code} (${String((error as Error)?.name)}: ${String((error as Error)?.message)}) request_id=${requestId}`);
      ctx.status = status;
      ctx.body = body;
    }
  };
}
