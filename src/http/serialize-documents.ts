import type { z } from 'zod';
import type { DocumentFieldValues, StoredDocument } from '../domain/documents.js';
import { formatNullableTimestamp as tsOrNull, formatTimestamp as ts } from '../domain/time.js';
import type { DocumentSchema, MediaSchema, SearchHitSchema } from './schemas/records.js';
import type { DocumentHit } from '../actors/owner-documents.js';

/**
 * The document record (DECISIONS.md): text documents carry `content`, media carry `derived_text` and
 * `derived_by`. Original bytes never appear; they are at `/v1/documents/{doc_id}/download`.
 * Shared with the structured query engine so both return the same records.
 */
export function documentJson(doc: StoredDocument, fields: DocumentFieldValues = {}): z.output<typeof DocumentSchema> {
  const text = doc.modality === 'text' ? { content: doc.content } : { derived_text: doc.derived_text, derived_by: doc.derived_by, filename: doc.filename };
  return {
    doc_id: doc.doc_id,
    cid: doc.cid,
    entity_id: doc.entity_id,
    partition: doc.partition,
    modality: doc.modality,
    content_type: doc.content_type,
    title: doc.title,
    ...text,
    metadata: doc.metadata,
    tags: doc.tags,
    source: doc.source,
    readers: doc.readers,
    fields,
    created_at: ts(doc.created_at),
    updated_at: ts(doc.updated_at),
    deleted_at: tsOrNull(doc.deleted_at),
  };
}

/** The media record answered by `POST /v1/memory/media` (spec: Media record). */
export function mediaJson(doc: StoredDocument): z.output<typeof MediaSchema> {
  return {
    doc_id: doc.doc_id,
    cid: doc.cid,
    modality: doc.modality,
    content_type: doc.content_type,
    derived_text: doc.derived_text,
    derived_by: doc.derived_by,
    created_at: ts(doc.created_at),
    entity_id: doc.entity_id,
    partition: doc.partition,
    metadata: doc.metadata,
    filename: doc.filename,
    tags: doc.tags,
    source: doc.source,
    readers: doc.readers,
  };
}

/** A search hit (DECISIONS.md, Search); `content` is the text or the media's derived text, when asked. */
export function hitJson(hit: DocumentHit, includeContent: boolean): z.output<typeof SearchHitSchema> {
  const { doc } = hit;
  return {
    doc_id: doc.doc_id,
    score: hit.score,
    distance: hit.distance === null ? null : Math.round(hit.distance * 1e6) / 1e6,
    passage: hit.passage,
    modality: doc.modality,
    content_type: doc.content_type,
    title: doc.title,
    metadata: doc.metadata,
    created_at: ts(doc.created_at),
    ...(includeContent ? { content: doc.content ?? doc.derived_text } : {}),
  };
}
