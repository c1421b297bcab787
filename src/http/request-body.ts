import coBody from 'co-body';
import type { IncomingMessage } from 'node:http';
import { AppError } from '../errors.js';
import type { AppContext } from './context.js';
import { bodyNotReceived, bodyTooLarge } from './middleware/errors.js';

/** Bodies already read, by request: the idempotency check and `parseBody` read the one body once. */
const bodies = new WeakMap<AppContext, Buffer>();
/** Streamed bodies taken through a tap (the idempotency check's hash), by request. */
const streams = new WeakMap<AppContext, AsyncIterable<Uint8Array>>();

/**
 * The request body's bytes, read once per request whoever asks first, at most `limitBytes` (413 above,
 * before more than that is read). Bytes, not co-body's text: its decoder turns bytes that are not UTF-8
 * into U+FFFD without a word (the caller decodes with a fatal decoder).
 */
export async function bodyBytes(ctx: AppContext, limitBytes: number): Promise<Buffer> {
  const read = bodies.get(ctx);
  if (read) {
    if (read.length > limitBytes) throw bodyTooLarge();
    return read;
  }
  const bytes =
    ctx.req.headers['content-encoding'] === undefined
      ? await plainBody(ctx.req, limitBytes)
      : ((await coBody.text(ctx.req, { limit: limitBytes, encoding: null as unknown as string })) as unknown as Buffer);
  bodies.set(ctx, bytes);
  return bytes;
}

/**
 * A body sent as it is (no Content-Encoding: every SDK's request), read as raw-body reads it for co-body,
 * with the same outcomes: 413 when Content-Length or the bytes received pass the limit (then the stream is
 * paused, read no further), 400 when the client went away before the end, the stream's own error as it
 * is. co-body's layers around raw-body (an async wrapper, its options cloned and parsed, a promise, five
 * listeners and a copy of the bytes) cost the main thread ~5 µs per request: ~6% of the assertions a
 * second (docs/performance-facts.md). A compressed body still goes through co-body, which inflates it.
 */
function plainBody(req: IncomingMessage, limitBytes: number): Promise<Buffer> {
  const declared = req.headers['content-length'];
  const length = declared === undefined ? null : Number(declared);
  if (length !== null && length > limitBytes) return Promise.reject(bodyTooLarge());
  // Read before (a bug, as raw-body says it): it would never end again.
  if (!req.readable) return Promise.reject(new Error('the request body is no longer readable'));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const settle = (error: Error | null) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('aborted', onAborted);
      req.off('close', onAborted);
      if (error) {
        req.pause();
        reject(error);
      } else if (length !== null && received !== length) {
        reject(new AppError('invalid_input', 'request body does not match its Content-Length'));
      } else {
        resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received));
      }
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limitBytes) settle(bodyTooLarge());
      else chunks.push(chunk);
    };
    const onEnd = () => settle(null);
    const onError = (error: Error) => settle(error);
    // 'close' before 'end' is a client gone too (raw-body would wait for ever on it).
    const onAborted = () => settle(bodyNotReceived());
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('aborted', onAborted);
    req.on('close', onAborted);
  });
}

/** The request body as a stream of chunks, for a route that reads it as it arrives (an import). */
export function bodyStream(ctx: AppContext): AsyncIterable<Uint8Array> {
  return streams.get(ctx) ?? ctx.req;
}

/** Makes `bodyStream` pass every chunk through `tap` first; `ended` is called once the body is read whole. */
export function tapBodyStream(ctx: AppContext, tap: (chunk: Uint8Array) => void, ended: () => void): void {
  const source = ctx.req;
  streams.set(ctx, (async function* tapped() {
    for await (const chunk of source as AsyncIterable<Uint8Array>) {
      tap(chunk);
      yield chunk;
    }
    ended();
  })());
}
