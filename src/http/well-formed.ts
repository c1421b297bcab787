import { isUtf8 } from 'node:buffer';
import { unescape } from 'node:querystring';
import { invalidInput } from '../errors.js';

/**
 * Text that enters over HTTP must be well-formed Unicode. A lone UTF-16 surrogate (`"\udfff"` in JSON)
 * has no UTF-8 form: LMDB would store it as U+FFFD, so the service would acknowledge one string and keep
 * another. In a URL the same text can only arrive as percent-escapes that are not UTF-8 (`%ED%BF%BF`),
 * which Node's query parser would quietly turn into U+FFFD. Both are refused here, where the shared
 * parse helpers (validate.ts) read them, so no route can forget.
 */
const RULE = 'text must be well-formed Unicode';

/** One path step into a JSON value: an object key or an array index. */
type Step = string | number;

/** A value still to visit, with the way back to the root (built into a path only when it is reported). */
interface Pending {
  value: unknown;
  parent: Pending | null;
  step: Step | null;
}

/**
 * Refuses a parsed JSON value with a string or an object key that is not well-formed, naming its path:
 * `display_name contains a lone surrogate (U+DFFF at index 1); text must be well-formed Unicode`. The
 * walk is iterative: JSON nests as deep as the body limit allows, deeper than the call stack. It refuses
 * the key `__proto__` too, by path: records (zod) and the store (msgpack) drop or rename it, so it could
 * not be kept as sent.
 */
export function assertWellFormedJson(value: unknown, describePath: (path: Step[]) => string): void {
  const stack: Pending[] = [{ value, parent: null, step: null }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const v = item.value;
    if (typeof v === 'string') {
      if (!v.isWellFormed()) throw invalidInput(`${describePath(pathOf(item))} contains ${describeLoneSurrogate(v)}; ${RULE}`);
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], parent: item, step: i });
    } else if (v !== null && typeof v === 'object') {
      for (const [key, child] of Object.entries(v)) {
        if (key === '__proto__') throw invalidInput(`${describePath(pathOf(item))} has the key "__proto__", which is reserved (it names the JavaScript prototype); rename it`);
        if (!key.isWellFormed()) {
          throw invalidInput(`${describePath(pathOf(item))} has a key ${JSON.stringify(key.slice(0, 64))} with ${describeLoneSurrogate(key)}; ${RULE}`);
        }
        stack.push({ value: child, parent: item, step: key });
      }
    }
  }
}

function pathOf(item: Pending): Step[] {
  const path: Step[] = [];
  for (let at: Pending | null = item; at !== null && at.step !== null; at = at.parent) path.push(at.step);
  return path.reverse();
}

/** `a lone surrogate (U+DFFF at index 1)`: the first code unit that is not half of a pair. */
function describeLoneSurrogate(text: string): string {
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0xd800 || unit > 0xdfff) continue;
    const next = text.charCodeAt(i + 1);
    if (unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      i++;
      continue;
    }
    return `a lone surrogate (U+${unit.toString(16).toUpperCase()} at index ${i})`;
  }
  return 'a lone surrogate';
}

/**
 * Refuses a raw query string (`ctx.querystring`, still percent-encoded) whose names or values do not
 * decode to UTF-8. Query strings are ASCII on the wire (Node refuses other bytes in a request target),
 * so only escapes of bytes 0x80-0xFF need a look.
 */
export function assertWellFormedQuery(querystring: string): void {
  if (!/%[89a-fA-F]/.test(querystring)) return;
  for (const pair of querystring.split('&')) {
    const eq = pair.indexOf('=');
    const rawName = eq === -1 ? pair : pair.slice(0, eq);
    const name = decodesToUtf8(rawName) ? `query parameter ${unescape(rawName.replace(/\+/g, ' '))}` : 'a query parameter name';
    if (!decodesToUtf8(pair)) {
      throw invalidInput(`${name} is not UTF-8 once percent-decoded (a lone surrogate such as %ED%BF%BF has no UTF-8 form); ${RULE}`);
    }
  }
}

/**
 * A path parameter as @koa/router hands it over: when its escapes are not UTF-8 the router keeps the raw
 * text, escapes included. No path parameter may contain `%` (ids and field names are ASCII words), so
 * escapes that still do not decode are exactly that case.
 */
export function assertWellFormedParam(value: unknown, name: string): void {
  if (typeof value !== 'string') return;
  if (!value.isWellFormed()) throw invalidInput(`path parameter ${name} contains ${describeLoneSurrogate(value)}; ${RULE}`);
  if (/%[89a-fA-F][0-9a-fA-F]/.test(value) && !decodesToUtf8(value)) {
    throw invalidInput(`path parameter ${name} is not UTF-8 once percent-decoded (a lone surrogate such as %ED%BF%BF has no UTF-8 form); ${RULE}`);
  }
}

/**
 * Whether percent-decoding gives UTF-8 bytes. `raw` is ASCII, so as latin1 each character is its byte and
 * each escape becomes the byte it names; malformed escapes such as `%zz` stay literal, as Node keeps them.
 */
function decodesToUtf8(raw: string): boolean {
  const bytes = raw.replace(/%([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return isUtf8(Buffer.from(bytes, 'latin1'));
}

/** Refuses bytes that are not UTF-8, where a lenient decoder would keep U+FFFD in their place. */
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * A request body's bytes as text. Bytes that are not UTF-8 are refused (400), naming the first one, instead
 * of being stored as U+FFFD: what the caller sent would silently be something else.
 */
export function decodeUtf8Body(bytes: Uint8Array): string {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    const at = firstInvalidUtf8(bytes);
    throw invalidInput(`request body is not valid UTF-8 (byte 0x${bytes[at]!.toString(16).padStart(2, '0')} at offset ${at})`);
  }
}

/** The offset of the first byte that does not start or continue a valid UTF-8 sequence. */
function firstInvalidUtf8(bytes: Uint8Array): number {
  let lo = 0;
  let hi = bytes.length;
  // The longest valid prefix, found by halving: a prefix decodes unless it holds an invalid byte (a sequence
  // cut at its end is allowed with `stream`).
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    try {
      new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, mid), { stream: true });
      lo = mid;
    } catch {
      hi = mid - 1;
    }
  }
  return Math.min(lo, bytes.length - 1);
}
