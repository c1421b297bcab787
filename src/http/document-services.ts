import type { ActorRegistry } from '../actors/registry.js';
import { documentsOf, type OwnerDocuments, type OwnerDocumentsDeps } from '../actors/owner-documents.js';
import type { Scope } from '../domain/scope.js';
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

/** A provider route that derives text from media; `phiSafe` routes may see PHI-strict tenants' media. */
export interface MediaRoute {
  name: string;
  kind: 'caption' | 'transcribe';
  url: string;
  model?: string | undefined;
  phiSafe: boolean;
}

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

/** The provider routes of the configuration: `MEDIA_PROVIDER_URL` (both kinds) and temporal.yaml's `media.routes`. */
export function mediaRoutesOf(config: {
  env: { MEDIA_PROVIDER_URL?: string | undefined; MEDIA_PROVIDER_PHI_SAFE: boolean };
  temporal: { media: { routes: Array<{ name: string; kind: 'caption' | 'transcribe'; url: string; model?: string | undefined; phi_safe: boolean }> } };
}): MediaRoute[] {
  const routes: MediaRoute[] = config.temporal.media.routes.map((r) => ({ name: r.name, kind: r.kind, url: r.url, model: r.model, phiSafe: r.phi_safe }));
  const url = config.env.MEDIA_PROVIDER_URL;
  if (url) {
    const phiSafe = config.env.MEDIA_PROVIDER_PHI_SAFE;
    routes.push({ name: 'default', kind: 'caption', url, phiSafe }, { name: 'default', kind: 'transcribe', url, phiSafe });
  }
  return routes;
}
