import type { DocumentLimits } from '../../config.js';
import { chooseMediaRoute, decodedBase64Length, isStandardBase64, judgeMedia } from '../../domain/media.js';
import { AppError, invalidInput, unavailable } from '../../errors.js';
import { contentId, mintId } from '../../ids.js';
import { sniffExtension } from '../../media/sniff.js';
import type { AppDeps } from '../context.js';
import { idempotentWrite } from '../idempotency.js';
import type { AppRouter } from '../router.js';
import { DocumentWriteQuerySchema } from '../schemas/documents.js';
import { MediaBodySchema, type MediaBody } from '../schemas/media.js';
import { ownerScope } from '../scope.js';
import { mediaJson } from '../serialize-documents.js';
import { documentServices, ownerDocuments } from '../services.js';
import { parseBody, parseQuery } from '../validate.js';

/** The JSON body limit of the media route: base64 of the largest payload plus room for its text. */
export function mediaBodyLimit(limits: DocumentLimits): number {
  return Math.ceil(limits.mediaBytes / 3) * 4 + limits.transcriptBytes * 6 + 64 * 1024;
}

export function registerMediaRoutes(router: AppRouter, deps: AppDeps): void {
  router.post('/memory/media', idempotentWrite(deps, { jsonLimit: () => mediaBodyLimit(documentServices(deps).limits) }), async (ctx) => {
    const services = documentServices(deps);
    const { readers, ...owner } = parseQuery(ctx, DocumentWriteQuerySchema);
    const scope = ownerScope(ctx, owner, 'write');
    const body = await parseBody(ctx, MediaBodySchema, mediaBodyLimit(services.limits));
    const clientText = checkDerivedText(body, services.limits);
    const bytes = await decodeMedia(body, services.limits);
    const verdict = judgeMedia(body.modality, body.content_type, await sniffExtension(bytes));
    if (!verdict.ok) throw invalidInput(verdict.message);

    const docId = mintId('doc');
    const input = {
      doc_id: docId,
      tenant: scope.tenant,
      entity_id: scope.entityId,
      partition: scope.partition,
      modality: body.modality,
      content_type: verdict.contentType,
      cid: contentId(bytes),
      filename: body.filename,
      metadata: body.metadata,
      tags: body.tags,
      source: body.source,
      readers: readers ?? null,
    };
    const part = ownerDocuments(deps, scope);
    if (clientText !== undefined) {
      const doc = await part.insert({ ...input, derived_text: clientText, derived_by: 'client' }, bytes);
      ctx.status = 201;
      ctx.body = mediaJson(doc);
      return;
    }
    const route = chooseMediaRoute(services.mediaRoutes, body.modality, ctx.state.principal.phiStrict);
    if (!route.ok) throw new AppError('media_processing_unavailable', route.reason);
    if (!services.captioner) throw unavailable('the job system that runs captioning is not available; send caption or transcript');
    await part.stagePending(input, bytes);
    try {
      await services.captioner.caption({ scope, docId, route: route.route.name });
    } catch (error) {
      // Nothing is kept when the provider fails: the staged bytes go too. The owner's actor is looked up
      // again: the one that staged them may have been evicted while the workflow ran.
      await ownerDocuments(deps, scope).discardPending(docId).catch(() => undefined);
      throw error;
    }
    const doc = services.docs.get(scope, docId);
    if (!doc) throw new AppError('internal', `captioned media ${docId} was not stored`);
    ctx.status = 201;
    ctx.body = mediaJson(doc);
  });
}

/** The caller's caption (images) or transcript (audio), after the pairing and size rules. */
function checkDerivedText(body: MediaBody, limits: DocumentLimits): string | undefined {
  if (body.modality === 'audio' && body.caption !== undefined) throw invalidInput('caption is for images; send transcript with audio');
  if (body.modality === 'image' && body.transcript !== undefined) throw invalidInput('transcript is for audio; send caption with images');
  const [field, text, max] = body.modality === 'image' ? ['caption', body.caption, limits.captionBytes] as const : ['transcript', body.transcript, limits.transcriptBytes] as const;
  if (text === undefined) return undefined;
  if (text.trim() === '') throw invalidInput(`${field} must not be empty (omit it to have it derived)`);
  const size = Buffer.byteLength(text, 'utf8');
  if (size > max) throw new AppError('payload_too_large', `${field} must be at most ${max} bytes of UTF-8, got ${size}`);
  return text;
}

async function decodeMedia(body: MediaBody, limits: DocumentLimits): Promise<Buffer> {
  if (!isStandardBase64(body.data_base64)) throw invalidInput('data_base64 must be standard base64 (A-Z, a-z, 0-9, +, / with = padding)');
  const size = decodedBase64Length(body.data_base64);
  if (size > limits.mediaBytes) throw new AppError('payload_too_large', `data_base64 decodes to ${size} bytes; media must be at most ${limits.mediaBytes} bytes`);
  return Buffer.from(body.data_base64, 'base64');
}

