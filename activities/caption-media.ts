import { log } from '@temporalio/activity';
import { routeKind } from '../src/domain/media.js';
import { AppError, notFound } from '../src/errors.js';
import { placementOf, scopeOf, type CaptionMediaActivities } from '../src/jobs/contract.js';
import { captionImage, transcribeAudio } from '../src/providers/media-provider.js';
import { withAppFailures } from './failures.js';
import type { ActivityPorts } from './ports.js';

/** Activities of the `captionMedia` workflow. */
export function createCaptionMediaActivities({ media, placement }: Pick<ActivityPorts, 'media' | 'placement'>): CaptionMediaActivities {
  return {
    async deriveMediaText(input) {
      return withAppFailures(async () => {
        placement.assertHosted(placementOf(input.owner));
        const scope = scopeOf(input.owner);
        const pending = media.getPending(scope, input.doc_id);
        if (!pending) {
          if (media.isDone(scope, input.doc_id)) return;
          throw notFound(`pending media ${input.doc_id}`);
        }
        const { doc } = pending;
        const kind = routeKind(doc.modality === 'audio' ? 'audio' : 'image');
        const route = media.routes.find((r) => r.name === input.route && r.kind === kind);
        if (!route) throw new AppError('media_processing_unavailable', `provider route ${input.route} is not configured`);
        const { bytes } = pending;
        const call = {
          url: route.url,
          key: media.providerKey,
          model: route.model,
          timeoutMs: media.timeoutMs,
          maxBytes: kind === 'caption' ? media.limits.captionBytes : media.limits.transcriptBytes,
        };
        const text =
          kind === 'caption'
            ? await captionImage(call, bytes, doc.content_type)
            : await transcribeAudio(call, bytes, doc.content_type, doc.filename ?? `${doc.doc_id}.${doc.content_type.split('/')[1] ?? 'bin'}`);
        await media.complete(scope, doc.doc_id, text, `provider:${route.name}`);
        log.info('media text derived', { doc_id: doc.doc_id, route: route.name, kind });
      });
    },
  };
}
