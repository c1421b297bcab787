import { EngramError } from '../errors.js';
import { contentTypeFromName, modalityOf, sniffContentType, toBase64 } from '../media-types.js';
import type { BodyOf, Media, WriteOptions } from '../types.js';
import type { OwnerContext } from './context.js';

/** Media to store: the bytes, and what the SDK should not guess (content type, modality) if you know it. */
export type MediaUpload = Omit<BodyOf<'uploadMedia'>, 'data_base64' | 'content_type' | 'modality'> & {
  data: Uint8Array | ArrayBuffer | Blob;
  /** Default: sniffed from the bytes, else taken from `filename`'s extension. */
  content_type?: string;
  /** Default: from the content type. */
  modality?: 'image' | 'audio';
  /** Principals allowed to read it (default: everyone of the tenant). */
  readers?: string[];
};

/** Thrown before any request when the SDK cannot tell the media's content type. */
export class UnknownMediaTypeError extends EngramError {
  override name = 'UnknownMediaTypeError';
}

/** Image and audio memories: bytes kept, a caption or transcript indexed. */
export class MediaMemories {
  constructor(private readonly ctx: OwnerContext) {}

  /**
   * Uploads image or audio bytes (base64 and content type handled here). Give a `caption` (images) or
   * `transcript` (audio) to skip the service's automatic captioning/transcription.
   */
  async upload(upload: MediaUpload, options?: WriteOptions): Promise<Media> {
    const { data, readers, content_type: given, modality: givenModality, ...rest } = upload;
    const bytes = await asBytes(data);
    const contentType = given ?? sniffContentType(bytes) ?? (rest.filename ? contentTypeFromName(rest.filename) : undefined) ?? blobType(data);
    if (contentType === undefined) {
      throw new UnknownMediaTypeError('media content type: the bytes are not a known image or audio format and no content_type or filename says what they are');
    }
    const modality = givenModality ?? modalityOf(contentType);
    if (modality === undefined) {
      throw new UnknownMediaTypeError(`media content type ${contentType} is not an image or audio type the service accepts; pass modality to send it anyway`);
    }
    const body: BodyOf<'uploadMedia'> = { ...rest, modality, content_type: contentType, data_base64: toBase64(bytes) };
    return this.ctx.transport.json({ operationId: 'uploadMedia', method: 'POST', path: '/v1/memory/media', query: this.ctx.query({ readers }), json: body, write: true, options });
  }
}

async function asBytes(data: Uint8Array | ArrayBuffer | Blob): Promise<Uint8Array> {
  if (data instanceof Uint8Array) return data;
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  return new Uint8Array(await data.arrayBuffer());
}

function blobType(data: Uint8Array | ArrayBuffer | Blob): string | undefined {
  return data instanceof Blob && data.type !== '' ? data.type : undefined;
}
