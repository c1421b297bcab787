import coBody from 'co-body';
import type { AppContext } from './context.js';
import { bodyTooLarge } from './middleware/errors.js';

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
  const bytes = (await coBody.text(ctx.req, { limit: limitBytes, encoding: null as unknown as string })) as unknown as Buffer;
  bodies.set(ctx, bytes);
  return bytes;
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
