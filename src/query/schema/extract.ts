import type { StoredDocument } from '../../domain/documents.js';
import { coerce } from './coerce.js';
import { compilePattern, patternText, type FieldPattern } from './pattern.js';
import { MISMATCH, MISSING, type Extracted, type FieldSource, type FieldType } from './types.js';

/** A declared field definition as extraction needs it. */
export interface FieldSpec {
  type: FieldType;
  source: FieldSource;
}

/** The most items a `string_list` regex field collects from one document. */
const MAX_LIST_MATCHES = 1000;

/** The text a regex source reads: a text document's content, or a media document's derived text. */
export function documentText(doc: Pick<StoredDocument, 'content' | 'derived_text'>): string | null {
  return doc.content ?? doc.derived_text;
}

/**
 * Reads one declared field from a document. A regex source reads the start of the text (`patternText`)
 * and yields its first capture group, or the whole match when the pattern has no group; no match (or a
 * group that did not take part) is missing. A `string_list` regex field collects every match.
 * `compiled` is the source's pattern compiled once by the caller (`compilePattern`); null when it
 * cannot be (a field declared before patterns ran on RE2), which reads as missing rather than failing
 * the document's write.
 */
export function extractField(doc: Pick<StoredDocument, 'metadata' | 'content' | 'derived_text'>, spec: FieldSpec, compiled?: FieldPattern | null): Extracted {
  if ('metadata' in spec.source) {
    return Object.hasOwn(doc.metadata, spec.source.metadata) ? coerce(doc.metadata[spec.source.metadata], spec.type) : MISSING;
  }
  const fullText = documentText(doc);
  const pattern = compiled === undefined ? compilePattern(spec.source.regex) : compiled;
  if (fullText === null || pattern === null) return MISSING;
  const text = patternText(fullText);
  if (spec.type === 'string_list') {
    const items: string[] = [];
    for (const m of pattern.matchAll(text)) {
      const item = (m.length > 1 ? m[1] : m[0])?.trim();
      if (item) items.push(item);
      if (items.length >= MAX_LIST_MATCHES) break;
    }
    return items.length === 0 ? MISSING : { kind: 'value', value: [...new Set(items)] };
  }
  const m = pattern.exec(text) as Array<string | undefined> | null;
  if (!m) return MISSING;
  const captured = m.length > 1 ? m[1] : m[0];
  if (captured === undefined) return MISSING;
  const result = coerce(captured, spec.type);
  return result.kind === 'missing' ? MISMATCH : result;
}
