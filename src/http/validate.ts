import type { z } from 'zod';
import { describeJsonKind } from '../domain/scalar.js';
import { invalidInput } from '../errors.js';
import type { AppContext } from './context.js';
import { bodyBytes } from './request-body.js';
import { assertWellFormedJson, assertWellFormedParam, assertWellFormedQuery, decodeUtf8Body } from './well-formed.js';

/**
 * Validates the query string against a strict schema: unknown parameters and repeated parameters are
 * refused, so a typo never silently widens a read, and so is text that is not UTF-8 (well-formed.ts).
 */
export function parseQuery<T extends z.ZodType>(ctx: AppContext, schema: T): z.infer<T> {
  assertWellFormedQuery(ctx.querystring);
  for (const [name, value] of Object.entries(ctx.query)) {
    if (Array.isArray(value)) throw invalidInput(`query parameter ${name} must be given once`);
  }
  return parseWith(schema, { ...ctx.query }, 'query parameter ');
}

/**
 * Validates a request header, undefined when absent. Given twice is refused: Node joins repeated values
 * with ", ", which would read as one value. Messages name the header, never its value.
 */
export function parseHeader<T extends z.ZodType>(ctx: AppContext, name: string, schema: T): z.infer<T> | undefined {
  const lower = name.toLowerCase();
  // Node's parsed headers hold every header given at least once: absent there, absent from the raw ones.
  if (ctx.req.headers[lower] === undefined) return undefined;
  const raw = ctx.req.rawHeaders;
  const values = raw.filter((value, i) => i % 2 === 1 && raw[i - 1]!.toLowerCase() === lower);
  if (values.length === 0) return undefined;
  if (values.length > 1) throw invalidInput(`header ${name} must be given once`);
  // As Node reads a header: surrounding spaces and tabs are not part of the value.
  return parseWith(schema, values[0]!.replace(/^[ \t]+|[ \t]+$/g, ''), `header ${name}`);
}

/** Validates a path parameter (decoded by the router; escapes that are not UTF-8 are refused). */
export function parseParam<T extends z.ZodType>(value: unknown, name: string, schema: T): z.infer<T> {
  assertWellFormedParam(value, name);
  return parseWith(schema, value, `path parameter ${name}`);
}

/**
 * Reads and validates a JSON body. Bodies must be `application/json` and at most `limitBytes`; larger
 * ones are 413 before they are fully read. Every string and key must be well-formed (well-formed.ts).
 */
export async function parseBody<T extends z.ZodType>(ctx: AppContext, schema: T, limitBytes: number): Promise<z.infer<T>> {
  const hasBody = ctx.request.length !== undefined ? ctx.request.length > 0 : ctx.get('Transfer-Encoding') !== '';
  if (!hasBody) return parseWith(schema, undefined, 'body');
  if (!isJson(ctx)) throw invalidInput('request body must be JSON with Content-Type: application/json');
  const text = decodeUtf8Body(await bodyBytes(ctx, limitBytes));
  const body = parseJsonObject(text);
  if (mayHoldIllFormedText(text)) assertWellFormedJson(body, (path) => formatPath(path) || 'body');
  return parseWith(schema, body, '');
}

/**
 * Whether the body is declared JSON: the exact value clients send is recognised without parsing the
 * header (type-is takes ~1 µs); any other value (another case, parameters) as type-is reads it.
 */
function isJson(ctx: AppContext): boolean {
  return ctx.get('Content-Type') === 'application/json' || Boolean(ctx.is('application/json'));
}

/**
 * A body must be a JSON object or array (RFC 8259 whitespace before it). JSON.parse keeps a `__proto__`
 * key as an own key like any other, which the walk of `parseBody` then refuses naming where it is. A
 * SyntaxError is answered 400 "request body is not valid JSON" (middleware/errors.ts).
 */
function parseJsonObject(text: string): unknown {
  if (!/^[ \t\n\r]*[[{]/.test(text)) throw new SyntaxError('a JSON body must be an object or an array');
  return JSON.parse(text);
}

/**
 * Whether JSON text decoded from strict UTF-8 may parse to what `assertWellFormedJson` refuses. Strict
 * UTF-8 holds no lone surrogate, so a parsed string can only get one from a `\u` escape; and a key is
 * `__proto__` only when the text spells it, plainly or with `\u` escapes. Text with neither (a batch of
 * plain assertions) needs no walk of every value it holds.
 */
function mayHoldIllFormedText(text: string): boolean {
  return text.includes('\\u') || text.includes('__proto__');
}

/**
 * Parses once without `reportInput`, which only the messages of a refusal read: asking for it costs ~1 µs
 * per parse even when the input is valid (measured on the owner query and a fact body). A refused input
 * is parsed again with it, for the message; schemas are pure, so the second parse refuses it the same way.
 */
function parseWith<T extends z.ZodType>(schema: T, input: unknown, where: string): z.infer<T> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const reported = schema.safeParse(input, { reportInput: true });
  const issues = reported.success ? result.error.issues : reported.error.issues;
  throw invalidInput(issues.slice(0, 3).map((issue) => describeIssue(issue, where)).join('; '));
}

/** Turns a zod issue into a message that names the field and the rule. */
export function describeIssue(issue: z.core.$ZodIssue, where: string): string {
  const path = formatPath(issue.path);
  const subject = `${where}${path}`.trim() || 'body';
  switch (issue.code) {
    case 'invalid_type':
      return issue.input === undefined
        ? `${subject} is required`
        : `${subject} must be ${issue.expected}, got ${describeJsonKind(issue.input)}`;
    case 'unrecognized_keys': {
      const names = issue.keys.join(', ');
      if (where.startsWith('query')) return `unknown query parameter${issue.keys.length > 1 ? 's' : ''} ${names}`;
      return `${subject} has unknown field${issue.keys.length > 1 ? 's' : ''} ${names}`;
    }
    default:
      return /^(must|is|has) /.test(issue.message) ? `${subject} ${issue.message}` : `${subject}: ${issue.message}`;
  }
}

function formatPath(path: PropertyKey[]): string {
  return path
    .map((part, i) => (typeof part === 'number' ? `[${part}]` : i === 0 ? String(part) : `.${String(part)}`))
    .join('');
}
