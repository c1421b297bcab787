import type { StoredDocument } from '../domain/documents.js';
import type { Entity } from '../domain/entities.js';
import type { Fact } from '../domain/facts.js';
import { passageOrigin, type EmbedderOrigin } from '../domain/reembed.js';
import type { Relationship } from '../domain/relationships.js';
import type { PassageRecord } from '../store/documents.js';
import { documentJson } from './serialize-documents.js';
import { entityJson, factJson, relationshipJson } from './serialize.js';

/**
 * One line of an owner's export (README, Export and import): `{ "type", "record" }`. Entities, relationships
 * and facts are their public records, which hold every stored field (instants as RFC 3339 with
 * milliseconds, as exact as the stored epoch milliseconds). A document is its public record without the
 * derived `fields`, plus what that record leaves out: every text field whatever the modality, the original
 * bytes, and the passages with their vectors and the embedder that made them.
 */
export type ExportLine =
  | { type: 'entity'; record: ReturnType<typeof entityJson> }
  | { type: 'relationship'; record: ReturnType<typeof relationshipJson> }
  | { type: 'fact'; record: ReturnType<typeof factJson> }
  | { type: 'document'; record: ExportedDocument };

export type ExportedDocument = ReturnType<typeof exportedDocument>;

export const entityLine = (e: Entity): string => line({ type: 'entity', record: entityJson(e) });
export const relationshipLine = (r: Relationship): string => line({ type: 'relationship', record: relationshipJson(r) });
export const factLine = (f: Fact): string => line({ type: 'fact', record: factJson(f) });

/** `bytes`: the original media, opened (null for text). A passage stored without its embedder's id is named by the node's rule. */
export function documentLine(doc: StoredDocument, passages: PassageRecord[], bytes: Uint8Array | null, origin: EmbedderOrigin): string {
  return line({ type: 'document', record: exportedDocument(doc, passages, bytes, origin) });
}

function exportedDocument(doc: StoredDocument, passages: PassageRecord[], bytes: Uint8Array | null, origin: EmbedderOrigin) {
  const { fields: _derived, ...record } = documentJson(doc);
  return {
    ...record,
    // The text fields the public record shows for the other modality only (null here unless set).
    content: doc.content,
    derived_text: doc.derived_text,
    derived_by: doc.derived_by,
    filename: doc.filename,
    data_base64: bytes ? base64(bytes) : null,
    passages: passages.map((p) => ({ text: p.text, embedder: passageOrigin(p.embedder, origin), vector_base64: base64(p.vector) })),
  };
}

/** Stored vectors are float32 in the host's byte order: little-endian on every platform Node ships for. */
function base64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

function line(value: ExportLine): string {
  return `${JSON.stringify(value)}\n`;
}
