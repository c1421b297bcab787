import { describe, expect, it } from 'vitest';
import { coerce, toJsonValue } from '../../src/query/schema/coerce.js';
import type { FieldType } from '../../src/query/schema/types.js';

const V = (value: unknown) => ({ kind: 'value', value });
const MISSING = { kind: 'missing' };
const MISMATCH = { kind: 'mismatch' };

/** Every source kind (string, number, boolean, null, absent) against every field type. */
const TABLE: Array<[FieldType, unknown, unknown]> = [
  // string: anything scalar becomes its text
  ['string', 'abc', V('abc')],
  ['string', '', V('')],
  ['string', '  padded ', V('  padded ')],
  ['string', 42, V('42')],
  ['string', 1.5, V('1.5')],
  ['string', true, V('true')],
  ['string', null, MISSING],
  ['string', undefined, MISSING],
  // int: safe integers and digit strings only
  ['int', 7, V(7)],
  ['int', -3, V(-3)],
  ['int', 0, V(0)],
  ['int', -0, V(0)],
  ['int', 1.5, MISMATCH],
  ['int', 2 ** 53, MISMATCH],
  ['int', '42', V(42)],
  ['int', ' -42 ', V(-42)],
  ['int', '+5', V(5)],
  ['int', '1.0', MISMATCH],
  ['int', '1e3', MISMATCH],
  ['int', '', MISMATCH],
  ['int', 'seven', MISMATCH],
  ['int', '99999999999999999999', MISMATCH],
  ['int', true, MISMATCH],
  ['int', null, MISSING],
  ['int', undefined, MISSING],
  // float: finite numbers and decimal strings
  ['float', 1.25, V(1.25)],
  ['float', 3, V(3)],
  ['float', -0, V(0)],
  ['float', '2.5', V(2.5)],
  ['float', '-.5', V(-0.5)],
  ['float', '1e3', V(1000)],
  ['float', ' 7 ', V(7)],
  ['float', 'NaN', MISMATCH],
  ['float', 'Infinity', MISMATCH],
  ['float', '1e999', MISMATCH],
  ['float', '0x10', MISMATCH],
  ['float', '', MISMATCH],
  ['float', false, MISMATCH],
  ['float', null, MISSING],
  // bool: booleans, 0/1 and their spellings
  ['bool', true, V(1)],
  ['bool', false, V(0)],
  ['bool', 1, V(1)],
  ['bool', 0, V(0)],
  ['bool', 2, MISMATCH],
  ['bool', 'TRUE', V(1)],
  ['bool', ' false ', V(0)],
  ['bool', '1', V(1)],
  ['bool', '0', V(0)],
  ['bool', 'yes', MISMATCH],
  ['bool', '', MISMATCH],
  ['bool', null, MISSING],
  // datetime: RFC 3339 with an offset, or a date; numbers are ambiguous
  ['datetime', '2026-11-21T23:23:19Z', V(Date.UTC(2026, 10, 21, 23, 23, 19))],
  ['datetime', '2026-11-21T23:23:19.5+01:00', V(Date.UTC(2026, 10, 21, 22, 23, 19, 500))],
  ['datetime', '2026-02-28', V(Date.UTC(2026, 1, 28))],
  ['datetime', '2026-02-30', MISMATCH],
  ['datetime', '2026-11-21T23:23:19', MISMATCH],
  ['datetime', '2026-13-01T00:00:00Z', MISMATCH],
  ['datetime', 'yesterday', MISMATCH],
  ['datetime', 1700000000000, MISMATCH],
  ['datetime', true, MISMATCH],
  ['datetime', null, MISSING],
  // string_list: comma-separated, trimmed, empty items dropped, duplicates once
  ['string_list', 'a, b ,c', V(['a', 'b', 'c'])],
  ['string_list', 'a,a,b', V(['a', 'b'])],
  ['string_list', 'solo', V(['solo'])],
  ['string_list', ' , ,', MISSING],
  ['string_list', '', MISSING],
  ['string_list', 5, V(['5'])],
  ['string_list', false, V(['false'])],
  ['string_list', null, MISSING],
  ['string_list', undefined, MISSING],
];

describe('coerce', () => {
  it.each(TABLE)('%s from %j', (type, raw, expected) => {
    expect(coerce(raw as never, type)).toEqual(expected);
  });

  it('never reports a value and a mismatch at once (coverage and mismatch_count never overlap)', () => {
    for (const [type, raw] of TABLE) expect(['value', 'missing', 'mismatch']).toContain(coerce(raw as never, type).kind);
  });
});

describe('toJsonValue', () => {
  it('turns bool 0/1 into booleans and datetimes into RFC 3339 UTC, other values as they are', () => {
    expect(toJsonValue(1, 'bool')).toBe(true);
    expect(toJsonValue(0, 'bool')).toBe(false);
    expect(toJsonValue(Date.UTC(2026, 0, 2, 3, 4, 5, 6), 'datetime')).toBe('2026-01-02T03:04:05.006Z');
    expect(toJsonValue(3, 'int')).toBe(3);
    expect(toJsonValue(['a'], 'string_list')).toEqual(['a']);
  });
});
