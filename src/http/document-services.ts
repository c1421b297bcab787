import type { ActorRegistry } from '../actors/registry.js';
import { documentsOf, type OwnerDocuments, type OwnerDocumentsDeps } from '../actors/owner-documents.js';
import type { Scope } from '../domain/scope.js';
import type { MediaRoute } from '../providers/media-provider.js';
import type { BlobCipher } from '../store/blobs.js';
import type { DocumentStore } from '../store/documents.js';
import type { Embedder } from '../vector/embedder.js';
import type { VectorIndexes } from '../vector/indexes.js';

/** Byte limits of documents and media (DECISIONS.md, Media and documents). */
export interface DocumentLimits {
  documentBytes: number;
  mediaBytes: number;
  captionBytes: number;
  transcriptBytes: number;
}

export const DEFAULT_DOCUMENT_LIMITS: DocumentLimits = {
  documentBytes: 1024 * 1024,
  mediaBytes: 25 * 1024 * 1024,
  captionBytes: 8 * 1024,
  transcriptBytes: 256 * 1024,
};

/** Runs the captioning/transcription workflow for staged media and resolves once its text is indexed. */
export interface MediaCaptioner {
  /** Throws AppError 502 when the provider failed after retries, 503 when the job system is down. */
  caption(input: { scope: Scope; docId: string; route: string }): Promise<void>;
}

/** Everything the document, media and search routes need. */
export interface DocumentServices extends OwnerDocumentsDeps {
  docs: DocumentStore;
  indexes: VectorIndexes;
  embedder: Embedder;
  cipher: BlobCipher;
  limits: DocumentLimits;
  mediaRoutes: MediaRoute[];
  /** Absent until the job system is wired; media without caller text then answers 503. */
  captioner?: MediaCaptioner | undefined;
}

export function ownerDocuments(actors: ActorRegistry, services: DocumentServices, scope: Scope): OwnerDocuments {
  return documentsOf(actors.actorFor(scope), services);
}
