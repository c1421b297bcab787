import type { ScalarMap } from './scalar.js';
import type { Modality, StoredDocument } from './documents.js';

/** What a caller asks to store; the owner fields come from the scope. */
export interface NewDocument {
  doc_id: string;
  tenant: string;
  entity_id: string;
  partition: string | null;
  modality: Modality;
  content_type: string;
  cid: string;
  title?: string | null | undefined;
  content?: string | null | undefined;
  derived_text?: string | null | undefined;
  derived_by?: string | null | undefined;
  filename?: string | null | undefined;
  metadata?: ScalarMap | undefined;
  tags?: string[] | undefined;
  source?: string | null | undefined;
  readers?: string[] | null | undefined;
}

export function newDocument(input: NewDocument, now: number): StoredDocument {
  return {
    doc_id: input.doc_id,
    cid: input.cid,
    tenant: input.tenant,
    entity_id: input.entity_id,
    partition: input.partition,
    modality: input.modality,
    content_type: input.content_type,
    title: input.title ?? null,
    content: input.content ?? null,
    derived_text: input.derived_text ?? null,
    derived_by: input.derived_by ?? null,
    filename: input.filename ?? null,
    metadata: input.metadata ?? {},
    tags: input.tags ?? [],
    source: input.source ?? null,
    readers: input.readers ?? null,
    created_at: now,
    updated_at: now,
    deleted_at: null,
  };
}

/** The text a document is searched by: its content, or a media record's caption or transcript. */
export function indexedText(doc: { content?: string | null | undefined; derived_text?: string | null | undefined; title?: string | null | undefined }): string {
  const body = doc.content ?? doc.derived_text ?? '';
  return doc.title ? `${doc.title}\n\n${body}` : body;
}

export function softDeleted(doc: StoredDocument, now: number): StoredDocument {
  return doc.deleted_at !== null ? doc : { ...doc, deleted_at: now, updated_at: now };
}

export function restored(doc: StoredDocument, now: number): StoredDocument {
  return doc.deleted_at === null ? doc : { ...doc, deleted_at: null, updated_at: now };
}

/** Parses the `readers` CSV: trimmed principals, empties dropped; an all-empty list is an error (null). */
export function parseReaders(csv: string): string[] | null {
  const names = [...new Set(csv.split(',').map((s) => s.trim()).filter((s) => s !== ''))];
  return names.length === 0 ? null : names;
}
