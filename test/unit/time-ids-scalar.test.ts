import { describe, expect, it } from 'vitest';
import { isValidId } from '../../src/domain/ids.js';
import { mintId } from '../../src/ids.js';
import { describeJsonKind, isScalar } from '../../src/domain/scalar.js';
import { formatTimestamp, parseTimestamp, TIMESTAMP_FORMAT_RULE, TIMESTAMP_RANGE_RULE, timestampRule } from '../../src/domain/time.js';

describe('parseTimestamp (RFC 3339 with offset)', () => {
  it.each([
    ['2026-11-21T23:23:19Z', Date.UTC(2026, 10, 21, 23, 23, 19)],
    ['2026-11-21T23:23:19.5Z', Date.UTC(2026, 10, 21, 23, 23, 19, 500)],
    ['2026-11-21T23:23:19.123456789Z', Date.UTC(2026, 10, 21, 23, 23, 19, 123)],
    ['2026-11-22T01:23:19+02:00', Date.UTC(2026, 10, 21, 23, 23, 19)],
    ['2026-11-21T20:53:19-02:30', Date.UTC(2026, 10, 21, 23, 23, 19)],
    ['2024-02-29T00:00:00z', Date.UTC(2024, 1, 29)],
    ['2026-11-21t23:23:19Z', Date.UTC(2026, 10, 21, 23, 23, 19)],
  ])('accepts %s', (text, ms) => {
    expect(parseTimestamp(text)).toBe(ms);
  });

  it.each([
    '2026-11-21',
    '2026-11-21T23:23:19',
    '2026-11-21 23:23:19Z',
    '2026-13-01T00:00:00Z',
    '2026-02-30T00:00:00Z',
    '2025-02-29T00:00:00Z',
    '2026-11-21T24:00:00Z',
    '2026-11-21T23:60:00Z',
    '2026-11-21T23:00:61Z',
    '2026-11-21T23:00:00+24:00',
    '2026-11-21T23:00:00+0100',
    '2026-11-21T23:00:00.Z',
    'yesterday',
    '',
    '1732230199',
  ])('rejects %j', (text) => {
    expect(parseTimestamp(text)).toBeNull();
  });

  // RFC 3339 has four-digit years and responses are UTC: the instant, offset applied, must be in 0000-9999.
  it.each([
    ['0000-01-01T00:00:00Z', '0000-01-01T00:00:00.000Z'],
    ['0000-01-01T00:00:00-00:01', '0000-01-01T00:01:00.000Z'],
    ['0000-01-01T23:59:00+23:59', '0000-01-01T00:00:00.000Z'],
    ['0000-12-31T12:00:00+05:00', '0000-12-31T07:00:00.000Z'],
    ['9999-12-31T23:59:59.999Z', '9999-12-31T23:59:59.999Z'],
    ['9999-12-31T23:59:59.999999999Z', '9999-12-31T23:59:59.999Z'],
    ['9999-12-31T23:59:59+00:01', '9999-12-31T23:58:59.000Z'],
    ['9999-12-31T00:00:00-23:59', '9999-12-31T23:59:00.000Z'],
  ])('accepts %s at the edge of the years, formatted back as %s', (text, formatted) => {
    const ms = parseTimestamp(text);
    expect(ms).not.toBeNull();
    expect(formatTimestamp(ms!)).toBe(formatted);
  });

  it.each([
    '0000-01-01T00:00:00+00:01',
    '0000-01-01T00:00:00+23:59',
    '0000-01-01T23:58:59+23:59',
    '9999-12-31T23:59:59-00:01',
    '9999-12-31T23:59:59-23:59',
    '9999-12-31T00:01:00-23:59',
  ])('rejects %s, outside years 0000-9999 once the offset is applied, naming the range', (text) => {
    expect(parseTimestamp(text)).toBeNull();
    expect(timestampRule(text)).toBe(TIMESTAMP_RANGE_RULE);
  });

  it('names the format rule for text that is not a timestamp at all', () => {
    expect(timestampRule('2026-11-21')).toBe(TIMESTAMP_FORMAT_RULE);
  });

  it('formats UTC with milliseconds and round-trips', () => {
    const ms = Date.UTC(2026, 10, 21, 23, 23, 19);
    expect(formatTimestamp(ms)).toBe('2026-11-21T23:23:19.000Z');
    expect(parseTimestamp(formatTimestamp(ms))).toBe(ms);
  });
});

describe('ids', () => {
  it.each(['a', 'ent_01J', 'A.b:c-d_e', 'x'.repeat(128)])('accepts %j', (id) => expect(isValidId(id)).toBe(true));
  it.each(['', '_a', '-a', 'a b', 'a/b', 'é', 'x'.repeat(129), 'a\n'])('rejects %j', (id) => expect(isValidId(id)).toBe(false));

  it('mints prefixed ULIDs that are valid ids and sort by creation', () => {
    const ids = Array.from({ length: 50 }, () => mintId('fact'));
    expect(ids.every((id) => /^fact_[0-9A-HJKMNP-TV-Z]{26}$/.test(id) && isValidId(id))).toBe(true);
    expect([...ids].sort()).toEqual(ids);
  });
});

describe('scalar rule', () => {
  it.each(['s', '', 0, -1.5, true, false, null])('accepts %j', (v) => expect(isScalar(v)).toBe(true));
  it.each([{}, [], [1], { a: 1 }, undefined, Number.NaN, Number.POSITIVE_INFINITY])('rejects %j', (v) =>
    expect(isScalar(v)).toBe(false),
  );
  it('names the kind of a rejected value', () => {
    expect(describeJsonKind({})).toBe('object');
    expect(describeJsonKind([])).toBe('array');
    expect(describeJsonKind(null)).toBe('null');
  });
});
