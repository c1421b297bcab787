import { log } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { DocumentServices } from '../src/actors/owner-documents.js';
import { routeKind } from '../src/domain/media.js';
import { notFound } from '../src/errors.js';
import { captionImage, transcribeAudio } from '../src/providers/media-provider.js';
import type { OwnerRef } from '../workflows/types.js';
import type { ActivityDeps } from './deps.js';
import { withAppFailures } from './failures.js';

export interface CaptionMediaSettings {
  providerKey?: string | undefined;
  timeoutMs: number;
}

/** Activities of the `captionMedia` workflow. */
export function createCaptionMediaActivities(deps: ActivityDeps & { documents?: DocumentServices; media?: CaptionMediaSettings }) {
  return {
    /**
     * Reads the staged media, asks the provider for its caption or transcript, and stores it as the
     * media's derived text in the owner's actor. Idempotent: a retry after the text was stored is a no-op.
     */
    async deriveMediaText(input: { owner: OwnerRef; doc_id: string; route: string }): Promise<void> {
      return withAppFailures(async () => {
        const services = deps.documents;
        if (!services) throw ApplicationFailure.create({ type: 'internal', message: 'documents are not configured', nonRetryable: true });
        const scope = { tenant: input.owner.tenant, partition: input.owner.partition, entityId: input.owner.entity_id };
        const pending = services.docs.getPending(scope, input.doc_id);
        if (!pending) {
          if (services.docs.get(scope, input.doc_id)) return;
          throw notFound(`pending media ${input.doc_id}`);
        }
        const { doc } = pending;
        const kind = routeKind(doc.modality === 'audio' ? 'audio' : 'image');
        const route = services.mediaRoutes.find((r) => r.name === input.route && r.kind === kind);
        if (!route) throw ApplicationFailure.create({ type: 'media_processing_unavailable', message: `provider route ${input.route} is not configured`, nonRetryable: true });
        const bytes = services.cipher.open(scope.tenant, doc.doc_id, pending.sealed);
        const call = {
          url: route.url,
          key: deps.media?.providerKey,
          model: route.model,
          timeoutMs: deps.media?.timeoutMs ?? 60_000,
          maxBytes: kind === 'caption' ? services.limits.captionBytes : services.limits.transcriptBytes,
        };
        const text =
          kind === 'caption'
            ? await captionImage(call, bytes, doc.content_type)
            : await transcribeAudio(call, bytes, doc.content_type, doc.filename ?? `${doc.doc_id}.${doc.content_type.split('/')[1] ?? 'bin'}`);
        await deps.actors.actorFor(scope).documents.completePending(doc.doc_id, text, `provider:${route.name}`);
        log.info('media text derived', { doc_id: doc.doc_id, route: route.name, kind });
      });
    },
  };
}

export type CaptionMediaActivities = ReturnType<typeof createCaptionMediaActivities>;
