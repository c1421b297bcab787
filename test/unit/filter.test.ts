import { describe, expect, it } from 'vitest';
import { compareCodePoints, compareWithMissingLast } from '../../src/query/plan/compare.js';
import { compileFilter, OPS_BY_TYPE } from '../../src/query/plan/filter.js';
import { matchesLeaf } from '../../src/query/plan/match.js';
import type { CompiledLeaf, ResolvedField } from '../../src/query/plan/types.js';
import { FIELD_TYPES, type FieldType } from '../../src/query/schema/types.js';

const fields: Record<string, ResolvedField> = Object.fromEntries(FIELD_TYPES.map((t) => [t, { name: t, type: t, ver: `v_${t}` }]));
const resolve = (name: string) => fields[name];
const leaf = (field: string, op: string, value: unknown) => compileFilter({ field, op, value }, resolve) as CompiledLeaf;

describe('compileFilter', () => {
  it('converts literals to index values: datetime to epoch ms, bool to 0/1, integer literal on float', () => {
    expect(leaf('datetime', 'gte', '2026-01-01T01:00:00+01:00').value).toBe(Date.UTC(2026, 0, 1));
    expect(leaf('bool', 'eq', true).value).toBe(1);
    expect(leaf('float', 'eq', 3).value).toBe(3);
    expect(leaf('int', 'in', [1, 2]).value).toEqual([1, 2]);
    expect(leaf('string', 'between', ['a', 'b']).value).toEqual(['a', 'b']);
  });

  it('keeps the and/or/not shape', () => {
    const f = compileFilter({ or: [{ not: { field: 'int', op: 'exists', value: true } }, { and: [{ field: 'string', op: 'prefix', value: 'x' }] }] }, resolve);
    expect(f.kind).toBe('or');
    expect(f.kind === 'or' && f.items.map((i) => i.kind)).toEqual(['not', 'and']);
  });

  it.each(FIELD_TYPES.flatMap((type) => ['eq', 'neq', 'in', 'gt', 'gte', 'lt', 'lte', 'between', 'exists', 'contains', 'prefix'].map((op) => [type, op] as [FieldType, string])))(
    'operator table: %s %s',
    (type, op) => {
      const literal: Record<FieldType, unknown> = { string: 's', string_list: 's', int: 1, float: 1.5, bool: true, datetime: '2026-01-01T00:00:00Z' };
      const value = op === 'exists' ? true : op === 'in' ? [literal[type]] : op === 'between' ? [literal[type], literal[type]] : op === 'contains' || op === 'prefix' ? 's' : literal[type];
      const allowed = (OPS_BY_TYPE[type] as readonly string[]).includes(op);
      if (allowed) expect(() => compileFilter({ field: type, op, value }, resolve)).not.toThrow();
      else expect(() => compileFilter({ field: type, op, value }, resolve)).toThrow(`"${type}"`);
    },
  );

  it('refuses a filter nested too deep', () => {
    let f: unknown = { field: 'int', op: 'eq', value: 1 };
    for (let i = 0; i < 20; i++) f = { not: f };
    expect(() => compileFilter(f, resolve)).toThrow(/deeper than/);
  });
});

describe('matchesLeaf (two-valued semantics)', () => {
  it('missing makes every leaf false except exists false; neq is exactly not eq', () => {
    expect(matchesLeaf(leaf('int', 'eq', 1), null)).toBe(false);
    expect(matchesLeaf(leaf('int', 'gt', 1), null)).toBe(false);
    expect(matchesLeaf(leaf('int', 'exists', false), null)).toBe(true);
    expect(matchesLeaf(leaf('int', 'neq', 1), null)).toBe(true);
    expect(matchesLeaf(leaf('int', 'neq', 1), 1)).toBe(false);
  });

  it('contains is a case-sensitive substring on strings and membership on lists; in on lists is any overlap', () => {
    expect(matchesLeaf(leaf('string', 'contains', 'ell'), 'Hello')).toBe(true);
    expect(matchesLeaf(leaf('string', 'contains', 'ELL'), 'Hello')).toBe(false);
    expect(matchesLeaf(leaf('string_list', 'contains', 'b'), ['a', 'b'])).toBe(true);
    expect(matchesLeaf(leaf('string_list', 'contains', 'ab'), ['a', 'b'])).toBe(false);
    expect(matchesLeaf(leaf('string_list', 'in', ['x', 'b']), ['a', 'b'])).toBe(true);
  });

  it('between is inclusive; strings compare by code point', () => {
    expect(matchesLeaf(leaf('int', 'between', [1, 3]), 3)).toBe(true);
    expect(matchesLeaf(leaf('string', 'gt', '\uffff'), '😀')).toBe(true);
    expect(matchesLeaf(leaf('string', 'lt', 'a'), 'B')).toBe(true);
  });
});

describe('compare', () => {
  it('orders by code point (astral after U+FFFF), unlike UTF-16 order', () => {
    expect(compareCodePoints('\uffff', '😀')).toBeLessThan(0);
    expect('\uffff' < '😀').toBe(false);
    expect(compareCodePoints('ab', 'abc')).toBeLessThan(0);
  });

  it('puts missing values last in both directions', () => {
    expect([3, null, 1].sort((a, b) => compareWithMissingLast(a, b, 'asc'))).toEqual([1, 3, null]);
    expect([3, null, 1].sort((a, b) => compareWithMissingLast(a, b, 'desc'))).toEqual([3, 1, null]);
  });
});
