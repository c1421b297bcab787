/**
 * RFC 3339 timestamps. Requests must carry a time zone offset (`Z` or `±hh:mm`); responses are UTC with
 * milliseconds. Instants are held as epoch milliseconds; finer fractions are truncated toward the past.
 */
const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

export const TIMESTAMP_FORMAT_RULE = 'must be an RFC 3339 timestamp with a time zone offset';

/**
 * RFC 3339 writes four-digit years, and responses are in UTC: an instant outside years 0000-9999 in UTC
 * (`0000-01-01T00:00:00+23:59` is in year -1) could be stored but never written back as RFC 3339.
 */
export const TIMESTAMP_RANGE_RULE = 'must fall in years 0000 to 9999 once its offset is applied (0000-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z)';

/** Parses an RFC 3339 timestamp to epoch milliseconds, or returns null when it is not one or is out of range. */
export function parseTimestamp(text: string): number | null {
  const ms = parseUnbounded(text);
  return ms !== null && ms >= EARLIEST_MS && ms <= LATEST_MS ? ms : null;
}

/** The rule a text that `parseTimestamp` refuses breaks: the format, or the range of years. */
export function timestampRule(text: string): string {
  return parseUnbounded(text) === null ? TIMESTAMP_FORMAT_RULE : TIMESTAMP_RANGE_RULE;
}

function parseUnbounded(text: string): number | null {
  const m = RFC3339.exec(text);
  if (!m) return null;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  if (hour > 23 || minute > 59 || second > 59) return null;
  let offsetMinutes = 0;
  if (!m[8]) {
    const offHours = Number(m[10]);
    const offMinutes = Number(m[11]);
    if (offHours > 23 || offMinutes > 59) return null;
    offsetMinutes = (m[9] === '-' ? -1 : 1) * (offHours * 60 + offMinutes);
  }
  const millis = m[7] ? Math.floor(Number(`0${m[7]}`) * 1000) : 0;
  return utcMillis(year, month, day, hour, minute, second, millis) - offsetMinutes * 60_000;
}

/** Like Date.UTC, but years 0-99 stay years 0-99 (Date.UTC maps them to 1900-1999). */
function utcMillis(year: number, month: number, day: number, hour: number, minute: number, second: number, millis: number): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, millis);
  return date.getTime();
}

/**
 * Formats epoch milliseconds as `YYYY-MM-DDTHH:mm:ss.sssZ`. A record's instants are often the same one
 * (created, updated, observed), so the last answer is remembered.
 */
export function formatTimestamp(ms: number): string {
  if (ms !== lastFormatted.ms) {
    lastFormatted.ms = ms;
    lastFormatted.text = new Date(ms).toISOString();
  }
  return lastFormatted.text;
}

const lastFormatted = { ms: Number.NaN, text: '' };

export function formatNullableTimestamp(ms: number | null): string | null {
  return ms === null ? null : formatTimestamp(ms);
}

const EARLIEST_MS = utcMillis(0, 1, 1, 0, 0, 0, 0);
const LATEST_MS = utcMillis(9999, 12, 31, 23, 59, 59, 999);

function daysInMonth(year: number, month: number): number {
  return new Date(utcMillis(year, month + 1, 0, 0, 0, 0, 0)).getUTCDate();
}

/** True when a record with this interval was active at instant `at` (transaction time). */
export function activeAt(record: { observed_at: number; invalid_from: number | null }, at: number): boolean {
  return record.observed_at <= at && (record.invalid_from === null || record.invalid_from > at);
}

export interface TemporalQuery {
  include_inactive?: boolean | undefined;
  as_of?: number | undefined;
  limit: number;
}

/** `as_of` selects what was active then; otherwise `include_inactive` decides. */
export function stateMatches(record: { observed_at: number; invalid_from: number | null }, query: TemporalQuery): boolean {
  if (query.as_of !== undefined) return activeAt(record, query.as_of);
  return query.include_inactive === true || record.invalid_from === null;
}
