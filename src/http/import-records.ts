import type { DocumentServices } from '../actors/owner-documents.js';
import type { RestoredDocument } from '../actors/owner-import.js';
import type { StoredDocument } from '../domain/documents.js';
import { decodedBase64Length, isStandardBase64 } from '../domain/media.js';
import type { Scope } from '../domain/scope.js';
import { AppError, invalidInput } from '../errors.js';
import { contentId } from '../ids.js';
import { toFloat32 } from '../store/documents.js';
import { ImportLineSchema, type ImportedDocumentRecord, type ImportLine } from './schemas/import.js';
import { describeIssue } from './validate.js';
import { assertWellFormedJson } from './well-formed.js';

/** Parses and validates one line of an import; errors name the line and the field (`line 7 record.value ...`). */
export function parseImportLine(text: string, line: number): ImportLine {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw invalidInput(`line ${line} is not valid JSON`);
  }
  assertWellFormedJson(json, (path) => `line ${line} ${path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${p}`)).join('').replace(/^\./, '')}`.trim());
  const result = ImportLineSchema.safeParse(json, { reportInput: true });
  if (result.success) return result.data;
  throw invalidInput(result.error.issues.slice(0, 3).map((issue) => describeIssue(issue, `line ${line} `)).join('; '));
}

/**
 * A document line as the import's scope will hold it, after the checks no schema can make: text documents
 * carry content and no bytes, media carry bytes and derived text, `cid` is the hash of what they carry, the
 * sizes fit this node's limits, and the vectors are kept only when this node's embedder made them (of its
 * dimensions), else the text is embedded anew.
 */
export function restoredDocument(record: ImportedDocumentRecord, scope: Scope, line: number, services: DocumentServices): RestoredDocument {
  const at = (field: string) => `line ${line} record.${field}`;
  const { data_base64: data, passages, ...fields } = record;
  const doc: StoredDocument = { ...fields, tenant: scope.tenant, entity_id: scope.entityId, partition: scope.partition };
  let bytes: Uint8Array | undefined;
  if (doc.modality === 'text') {
    if (doc.content === null) throw invalidInput(`${at('content')} is required for a text document`);
    if (data !== null) throw invalidInput(`${at('data_base64')} must be null for a text document`);
    const size = Buffer.byteLength(doc.content, 'utf8');
    if (size > services.limits.documentBytes) throw tooLarge(`${at('content')} must be at most ${services.limits.documentBytes} bytes of UTF-8, got ${size}`);
    checkCid(doc.cid, contentId(doc.content), at('cid'));
  } else {
    if (data === null) throw invalidInput(`${at('data_base64')} is required for ${doc.modality} (the original bytes)`);
    if (doc.derived_text === null) throw invalidInput(`${at('derived_text')} is required for ${doc.modality}`);
    if (!isStandardBase64(data)) throw invalidInput(`${at('data_base64')} must be standard base64 (A-Z, a-z, 0-9, +, / with = padding)`);
    const size = decodedBase64Length(data);
    if (size > services.limits.mediaBytes) throw tooLarge(`${at('data_base64')} decodes to ${size} bytes; media must be at most ${services.limits.mediaBytes} bytes`);
    bytes = Buffer.from(data, 'base64');
    checkCid(doc.cid, contentId(bytes), at('cid'));
  }
  const { id, dimensions } = services.embedder;
  if (!passages.every((p) => p.embedder === id)) return { doc, bytes, embedded: null };
  const vectors = passages.map((p, i) => {
    const bytes = isStandardBase64(p.vector_base64) ? Buffer.from(p.vector_base64, 'base64') : null;
    if (bytes?.length !== dimensions * 4) {
      throw invalidInput(`${at(`passages[${i}].vector_base64`)} must be the base64 of ${dimensions} little-endian float32 (the dimensions of ${id})`);
    }
    return toFloat32(bytes);
  });
  return { doc, bytes, embedded: { passages: passages.map((p) => p.text), vectors, embedder: id } };
}

function checkCid(given: string, actual: string, where: string): void {
  if (given !== actual) throw invalidInput(`${where} does not match the content (it is ${actual}): the line was altered or cut`);
}

const tooLarge = (message: string): AppError => new AppError('payload_too_large', message);
