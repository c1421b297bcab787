import { RE2JS, RE2JSException } from 're2js';

/**
 * A field's regular expression, compiled for RE2 (re2js). User patterns run inside every document write
 * of their tenant, on the one event loop every tenant shares. A backtracking engine (JavaScript's
 * `RegExp`) lets a pattern such as `(a|a)*$` take time exponential in the text, and no check of a
 * pattern's shape can rule that out; RE2 never backtracks. Its time is linear in the text but grows
 * with the compiled program (`(\w{1,1000})!` keeps ~2,000 threads alive per character), so the
 * program and the text it reads are bounded too: together they cap one field's work per document
 * (`npm run bench:regex`).
 */
export type FieldPattern = RE2JS;

/** The largest compiled program a pattern may have (RE2 instructions; `INV-(\d+)` is 10). */
export const MAX_PATTERN_INSTRUCTIONS = 128;

/** How much of a document's text a regex source reads: its first 65,536 UTF-16 code units. */
export const PATTERN_TEXT_WINDOW = 65_536;

/**
 * The Perl and JavaScript features RE2 leaves out (they need backtracking), named so a refusal says
 * what to change rather than only where the parser stopped (RE2 reads `(?<=` as a bad group name).
 */
const UNSUPPORTED: ReadonlyArray<[RegExp, string]> = [
  [/\(\?<[=!]/, 'lookbehind ((?<= and (?<!) is not supported'],
  [/\(\?[=!]/, 'lookahead ((?= and (?!) is not supported'],
  [/\\[1-9]|\\k</, 'backreferences (\\1, \\k<name>) are not supported'],
  [/\\u/, 'write a code point as \\x{41}, not \\u0041'],
];

/** Thrown when a pattern is not one a field may use; the message says why and how to fix it. */
export class PatternError extends Error {
  override readonly name = 'PatternError';
}

/** Compiles a field pattern with RE2 semantics; throws `PatternError` for a pattern a field may not use. */
export function compilePattern(pattern: string): FieldPattern {
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(pattern);
  } catch (error) {
    if (!(error instanceof RE2JSException)) throw error;
    const parser = error.message.replace(/^error parsing regexp: /, '');
    const feature = UNSUPPORTED.find(([shape]) => shape.test(pattern));
    throw new PatternError(feature ? `${feature[1]} (RE2: ${parser})` : parser, { cause: error });
  }
  const size = compiled.programSize();
  if (size > MAX_PATTERN_INSTRUCTIONS) {
    throw new PatternError(
      `compiles to ${size} RE2 instructions, more than ${MAX_PATTERN_INSTRUCTIONS}; counted repetitions such as {1,1000} and long alternations make it large, shorten them`,
    );
  }
  return compiled;
}

/** Why a pattern cannot be a field's source, or null when it can. */
export function patternError(pattern: string): string | null {
  try {
    compilePattern(pattern);
    return null;
  } catch (error) {
    if (error instanceof PatternError) return error.message;
    throw error;
  }
}

/** The part of a text a pattern reads: the window, without splitting a surrogate pair at its end. */
export function patternText(text: string): string {
  if (text.length <= PATTERN_TEXT_WINDOW) return text;
  const last = text.charCodeAt(PATTERN_TEXT_WINDOW - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? PATTERN_TEXT_WINDOW - 1 : PATTERN_TEXT_WINDOW);
}
