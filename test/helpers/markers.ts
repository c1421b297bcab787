import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import type { TestService } from './service.js';

const image = readFileSync(new URL('../fixtures/media/image.png', import.meta.url));

/** The real PNG every marker test uploads. */
export const MARKER_IMAGE = image;

type TextMarker = 'entityName' | 'entityAlias' | 'entityAttribute' | 'relationshipAttribute' | 'factValue' | 'factOldValue' | 'docContent' | 'docTitle' | 'docMetadata' | 'caption' | 'mediaFilename';

/** Unique byte strings, one per content path, and the ids of the records that carry them. */
export interface WrittenMarkers {
  /** Content sealed at rest: in no file while encryption is on. */
  sealed: Record<TextMarker, string> & { mediaBytes: Uint8Array };
  /** Values the field indexes hold (built-in `tags` and `source`, the declared `project`): in LMDB until deleted and compacted. */
  indexed: Record<string, string>;
  entityId: string;
  docId: string;
  mediaId: string;
}

/** Declares `project` (metadata) and wakes the tenant's field indexes with a first query. */
export async function indexTenant(svc: Pick<TestService, 'call'>): Promise<void> {
  expect((await svc.call('PUT', '/v1/schema/fields', { body: { fields: [{ name: 'project', type: 'string', source: { metadata: 'project' } }] } })).status).toBe(200);
  expect((await svc.call('POST', '/v1/query', { body: { filter: { field: 'project', op: 'exists', value: true } } })).status).toBe(200);
}

/**
 * Writes a unique marker through every content path of one owner over the API: entity name, alias and
 * attribute, a relationship attribute, a fact value and the value it superseded, a document's content,
 * title, metadata, tags, source and declared field, and a media upload's bytes, filename and caption.
 */
export async function writeMarkers(svc: Pick<TestService, 'call'>, ownerQuery: string): Promise<WrittenMarkers> {
  const tag = randomBytes(6).toString('hex');
  const marker = (what: string) => `mk-${what}-${tag}`;
  const q = ownerQuery;
  const sealed: WrittenMarkers['sealed'] = {
    entityName: marker('entity-name'),
    entityAlias: marker('entity-alias'),
    entityAttribute: marker('entity-attribute'),
    relationshipAttribute: marker('relationship-attribute'),
    factValue: marker('fact-value'),
    factOldValue: marker('fact-old-value'),
    docContent: marker('doc-content'),
    docTitle: marker('doc-title'),
    docMetadata: marker('doc-metadata'),
    caption: marker('media-caption'),
    mediaFilename: marker('media-filename'),
    mediaBytes: image.subarray(image.length / 2, image.length / 2 + 64),
  };
  const indexed = { declared: marker('declared-field'), tag: marker('tag'), source: marker('source') };
  const ok = async (method: string, path: string, body: unknown) => {
    const res = await svc.call(method, path, { body });
    expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(201);
    return res.body as Record<string, string>;
  };
  const ann = await ok('POST', `/v1/memory/entities?${q}`, { entity_type: 'person', display_name: sealed.entityName, aliases: [sealed.entityAlias], attributes: { note: sealed.entityAttribute } });
  await ok('POST', `/v1/memory/entities?${q}`, { entity_type: 'org', memory_entity_id: 'org-1' });
  await ok('POST', `/v1/memory/relationships?${q}`, { from_entity_id: ann.memory_entity_id, to_entity_id: 'org-1', relationship_type: 'works_at', attributes: { role: sealed.relationshipAttribute } });
  await ok('POST', `/v1/memory/facts?${q}`, { predicate: 'plan', value: sealed.factOldValue });
  await ok('POST', `/v1/memory/facts?${q}`, { predicate: 'plan', value: sealed.factValue });
  const doc = await ok('POST', `/v1/documents?${q}`, {
    content: `minutes: ${sealed.docContent}`,
    title: sealed.docTitle,
    metadata: { note: sealed.docMetadata, project: indexed.declared },
    tags: [indexed.tag],
    source: indexed.source,
  });
  const media = await ok('POST', `/v1/memory/media?${q}`, { modality: 'image', content_type: 'image/png', data_base64: image.toString('base64'), filename: `${sealed.mediaFilename}.png`, caption: sealed.caption });
  return { sealed, indexed, entityId: ann.memory_entity_id!, docId: doc.doc_id!, mediaId: media.doc_id! };
}
