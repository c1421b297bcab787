/**
 * @engram-memory/sdk/node: helpers that read and write files, for Node only (the main entry stays free
 * of `node:` imports so that browsers can load it).
 */
import { createWriteStream, openAsBlob } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import type { ImportReport, Media, MediaUpload, Owner, RequestOptions, WriteOptions } from './index.js';

/**
 * Uploads an image or audio file as a media memory. The content type is sniffed from the bytes, else
 * taken from the extension; `filename` defaults to the file's name.
 */
export async function uploadFile(owner: Owner, path: string, upload: Omit<MediaUpload, 'data'> = {}, options?: WriteOptions): Promise<Media> {
  const data = new Uint8Array(await readFile(path));
  return owner.media.upload({ filename: basename(path), ...upload, data }, options);
}

/** Writes a document's original bytes to a file (streamed, never held in memory whole). */
export async function downloadToFile(owner: Owner, docId: string, path: string, options?: RequestOptions): Promise<void> {
  const { body } = await owner.documents.download(docId, options);
  await pipeline(Readable.fromWeb(body as NodeReadableStream<Uint8Array>), createWriteStream(path));
}

/** Writes the owner's export (NDJSON) to a file, streamed. */
export async function exportToFile(owner: Owner, path: string, options?: RequestOptions): Promise<void> {
  const body = await owner.exportStream(options);
  await pipeline(Readable.fromWeb(body as NodeReadableStream<Uint8Array>), createWriteStream(path));
}

/** Imports an export file into the (empty) owner; the file is sent from disk and can be re-sent on a retry. */
export async function importFile(owner: Owner, path: string, options?: WriteOptions): Promise<ImportReport> {
  return owner.import(await openAsBlob(path, { type: 'application/x-ndjson' }), options);
}

