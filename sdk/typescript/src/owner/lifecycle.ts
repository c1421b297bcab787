import type { ErasureAccepted, ExportLine, ImportReport, RequestOptions, WriteOptions } from '../types.js';
import type { OwnerContext } from './context.js';

/** What `import` reads: export lines (objects), NDJSON text or bytes, or a stream of NDJSON bytes. */
export type ImportSource = Iterable<ExportLine> | AsyncIterable<ExportLine> | string | Uint8Array | Blob | ReadableStream<Uint8Array>;

/** An owner's whole state out (export), in (import) and gone (erasure). */
export class Lifecycle {
  constructor(private readonly ctx: OwnerContext) {}

  /** The export as NDJSON bytes, streamed. */
  async exportStream(options?: RequestOptions): Promise<ReadableStream<Uint8Array>> {
    const response = await this.ctx.transport.stream({ operationId: 'exportOwner', method: 'GET', path: '/v1/memory/export', query: this.ctx.query(), options });
    return response.body ?? new ReadableStream({ start: (c) => c.close() });
  }

  /** The export, one parsed line at a time (`for await`): entities, relationships, facts, documents. */
  async *exportLines(options?: RequestOptions): AsyncGenerator<ExportLine, void, undefined> {
    for await (const line of ndjsonLines(await this.exportStream(options))) yield JSON.parse(line) as ExportLine;
  }

  /**
   * Imports an export into this (empty) scope. Objects and text are sent as one Blob, which a retry can
   * send again; a ReadableStream is sent as it comes and is therefore never retried.
   */
  async import(source: ImportSource, options?: WriteOptions): Promise<ImportReport> {
    const body = source instanceof ReadableStream ? source : await asBlob(source);
    return this.ctx.transport.json({ operationId: 'importOwner', method: 'POST', path: '/v1/memory/import', query: this.ctx.query(), raw: { body, contentType: 'application/x-ndjson' }, write: true, options });
  }

  /** Erases the owner: from now on it reads as never existed; the receipt tells when the erasure is complete. */
  erase(options?: RequestOptions): Promise<ErasureAccepted> {
    return this.ctx.transport.json({ operationId: 'eraseOwner', method: 'DELETE', path: '/v1/memory', query: this.ctx.query(), options });
  }
}

async function asBlob(source: Exclude<ImportSource, ReadableStream<Uint8Array>>): Promise<Blob> {
  if (source instanceof Blob) return source;
  if (typeof source === 'string') return new Blob([source]);
  if (source instanceof Uint8Array) return new Blob([new Uint8Array(source)]);
  const parts: string[] = [];
  for await (const line of source as AsyncIterable<ExportLine>) parts.push(`${JSON.stringify(line)}\n`);
  return new Blob(parts, { type: 'application/x-ndjson' });
}

/** Splits a byte stream into its non-empty lines (UTF-8, `\n` or `\r\n`). */
export async function* ndjsonLines(stream: ReadableStream<Uint8Array>): AsyncGenerator<string, void, undefined> {
  const reader = stream.getReader();
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let pending = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      pending += done ? decoder.decode() : decoder.decode(value, { stream: true });
      const lines = pending.split('\n');
      pending = done ? '' : (lines.pop() ?? '');
      for (const line of lines) if (line.trim() !== '') yield line.replace(/\r$/, '');
      if (done) return;
    }
  } finally {
    reader.releaseLock();
  }
}
