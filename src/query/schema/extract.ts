import type { StoredDocument } from '../../domain/documents.js';
import { coerce } from './coerce.js';
import { MISMATCH, MISSING, type Extracted, type FieldSource, type FieldType } from './types.js';

/** A declared field definition as extraction needs it. */
export interface FieldSpec {
  type: FieldType;
  source: FieldSource;
}

/** The text a regex source reads: a text document's content, or a media document's derived text. */
export function documentText(doc: Pick<StoredDocument, 'content' | 'derived_text'>): string | null {
  return doc.content ?? doc.derived_text;
}

/**
 * Reads one declared field from a document. A regex source yields its first capture group, or the
 * whole match when the pattern has no group; no match (or a group that did not take part) is missing.
 * A `string_list` regex field collects every match.
 */
export function extractField(doc: Pick<StoredDocument, 'metadata' | 'content' | 'derived_text'>, spec: FieldSpec, compiled?: RegExp): Extracted {
  if ('metadata' in spec.source) {
    return Object.hasOwn(doc.metadata, spec.source.metadata) ? coerce(doc.metadata[spec.source.metadata], spec.type) : MISSING;
  }
  const text = documentText(doc);
  if (text === null) return MISSING;
  const regex = compiled ?? compileSource(spec.source.regex);
  if (spec.type === 'string_list') {
    const items: string[] = [];
    for (const m of text.matchAll(new RegExp(regex.source, withGlobal(regex.flags)))) {
      const item = (m.length > 1 ? m[1] : m[0])?.trim();
      if (item) items.push(item);
      if (items.length >= 1000) break;
    }
    return items.length === 0 ? MISSING : { kind: 'value', value: [...new Set(items)] };
  }
  const m = regex.exec(text);
  if (!m) return MISSING;
  const captured = m.length > 1 ? m[1] : m[0];
  if (captured === undefined) return MISSING;
  const result = coerce(captured, spec.type);
  return result.kind === 'missing' ? MISMATCH : result;
}

/** Compiles a regex source; throws a SyntaxError for an invalid pattern (the schema route checks first). */
export function compileSource(pattern: string): RegExp {
  return new RegExp(pattern, 'u');
}

function withGlobal(flags: string): string {
  return flags.includes('g') ? flags : `${flags}g`;
}

/** A group that ends in a quantifier and is itself quantified: `(a+)+`, `(\w*)*`, `(x{1,9}){2,}`. */
const NESTED_QUANTIFIER = /\((?:[^()\\]|\\.)*[+*}]\)[+*{]/;

/**
 * Whether a pattern is acceptable; returns why not. Patterns run on every document write, so the
 * classic catastrophic-backtracking shape (a quantified group ending in a quantifier) is refused too.
 */
export function regexError(pattern: string): string | null {
  try {
    compileSource(pattern);
  } catch (error) {
    return (error as Error).message;
  }
  return NESTED_QUANTIFIER.test(pattern) ? 'nests a quantifier inside a quantified group (catastrophic backtracking risk); rewrite it without nesting' : null;
}
