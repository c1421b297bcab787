import type { Scalar } from '../../domain/scalar.js';
import { formatTimestamp, parseTimestamp } from '../../domain/time.js';
import { assertUnreachable } from '../../errors.js';
import { MISMATCH, MISSING, type Extracted, type FieldType, type IndexValue } from './types.js';

const INT_TEXT = /^[+-]?\d+$/;
const FLOAT_TEXT = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * Coerces a raw source value to a field type. Pure and total: `null`/absent is missing, a value that
 * cannot represent the type is a mismatch. Strings are trimmed before numeric, bool and datetime parsing.
 *
 * - string: strings as they are; numbers and booleans in their JSON spelling.
 * - int: safe integers, or strings of digits; `1.5`, `true`, `"1e3"` are mismatches.
 * - float: finite numbers, or decimal strings (with exponent).
 * - bool: booleans, `0`/`1`, strings `true`/`false`/`1`/`0` (any case).
 * - datetime: RFC 3339 with an offset, or a `YYYY-MM-DD` date (midnight UTC); numbers are a mismatch,
 *   because seconds and milliseconds cannot be told apart.
 * - string_list: a comma-separated string, items trimmed, empty items dropped; an empty list is missing.
 */
export function coerce(raw: Scalar | undefined, type: FieldType): Extracted {
  if (raw === null || raw === undefined) return MISSING;
  switch (type) {
    case 'string':
      return value(typeof raw === 'string' ? raw : String(raw));
    case 'int':
      return coerceInt(raw);
    case 'float':
      return coerceFloat(raw);
    case 'bool':
      return coerceBool(raw);
    case 'datetime':
      return coerceDatetime(raw);
    case 'string_list':
      return coerceList(raw);
    default:
      return assertUnreachable(type);
  }
}

function value(v: IndexValue): Extracted {
  return { kind: 'value', value: v };
}

function coerceInt(raw: string | number | boolean): Extracted {
  if (typeof raw === 'number') return Number.isSafeInteger(raw) ? value(raw === 0 ? 0 : raw) : MISMATCH;
  if (typeof raw === 'string') {
    const text = raw.trim();
    if (!INT_TEXT.test(text)) return MISMATCH;
    const n = Number(text);
    return Number.isSafeInteger(n) ? value(n === 0 ? 0 : n) : MISMATCH;
  }
  return MISMATCH;
}

function coerceFloat(raw: string | number | boolean): Extracted {
  if (typeof raw === 'number') return Number.isFinite(raw) ? value(raw === 0 ? 0 : raw) : MISMATCH;
  if (typeof raw === 'string') {
    const text = raw.trim();
    if (!FLOAT_TEXT.test(text)) return MISMATCH;
    const n = Number(text);
    return Number.isFinite(n) ? value(n === 0 ? 0 : n) : MISMATCH;
  }
  return MISMATCH;
}

function coerceBool(raw: string | number | boolean): Extracted {
  if (typeof raw === 'boolean') return value(raw ? 1 : 0);
  if (typeof raw === 'number') return raw === 1 || raw === 0 ? value(raw) : MISMATCH;
  const text = raw.trim().toLowerCase();
  if (text === 'true' || text === '1') return value(1);
  if (text === 'false' || text === '0') return value(0);
  return MISMATCH;
}

function coerceDatetime(raw: string | number | boolean): Extracted {
  if (typeof raw !== 'string') return MISMATCH;
  const text = raw.trim();
  const ms = parseTimestamp(text) ?? parseDateOnly(text);
  return ms === null ? MISMATCH : value(ms);
}

function parseDateOnly(text: string): number | null {
  const m = DATE_ONLY.exec(text);
  return m ? parseTimestamp(`${m[1]}-${m[2]}-${m[3]}T00:00:00Z`) : null;
}

function coerceList(raw: string | number | boolean): Extracted {
  const items = (typeof raw === 'string' ? raw.split(',') : [String(raw)]).map((s) => s.trim()).filter((s) => s !== '');
  return items.length === 0 ? MISSING : value([...new Set(items)]);
}

/** The JSON form of an index value in responses: bool as boolean, datetime as RFC 3339 UTC. */
export function toJsonValue(v: IndexValue, type: FieldType): string | number | boolean | string[] {
  if (type === 'bool') return v === 1;
  if (type === 'datetime') return formatTimestamp(v as number);
  return v;
}
