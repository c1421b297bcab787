import type { Scalar, ScalarMap } from './scalar.js';

export const MODALITIES = ['text', 'image', 'audio'] as const;
export type Modality = (typeof MODALITIES)[number];

/**
 * A stored document (text, or media with its derived text). Instants are epoch milliseconds.
 * Shared contract between the document store (issue 4) and the field indexes (issue 5).
 */
export interface StoredDocument {
  doc_id: string;
  cid: string;
  /** Tenant is part of the storage key; it is kept here so tenant-wide indexes need no lookup. */
  tenant: string;
  entity_id: string;
  partition: string | null;
  modality: Modality;
  content_type: string;
  title: string | null;
  /** Text documents: the content. */
  content: string | null;
  /** Media: the caption or transcript that is indexed. */
  derived_text: string | null;
  /** `client` or `provider:<name>`; media only. */
  derived_by: string | null;
  filename: string | null;
  metadata: ScalarMap;
  tags: string[];
  source: string | null;
  /** Read ACL: principals allowed to see the record; null means everyone in scope. */
  readers: string[] | null;
  created_at: number;
  updated_at: number;
  deleted_at: number | null;
}

/** Declared field values of a document as the field indexes computed them (for the document record). */
export type DocumentFieldValues = Record<string, Scalar | string[]>;

/**
 * Called by the document store inside the LMDB write transaction that changes a document, so derived
 * indexes commit with it. `previous` is undefined on insert; `next` is undefined on hard delete. A soft
 * delete or restore arrives as `next` with `deleted_at` set or cleared.
 */
export interface DocumentWriteHook {
  onDocumentWrite(previous: StoredDocument | undefined, next: StoredDocument | undefined): void;
}
