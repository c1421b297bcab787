import { describe, expect, it } from 'vitest';
import { isValidId } from '../../src/domain/ids.js';
import { mintId } from '../../src/ids.js';
import { describeJsonKind, isScalar } from '../../src/domain/scalar.js';
import { formatTimestamp, parseTimestamp } from '../../src/domain/time.js';

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
