import { describe, expect, it } from 'vitest';
import { extractField, regexError } from '../../src/query/schema/extract.js';

const doc = (content: string | null, metadata: Record<string, string | number | boolean | null> = {}, derived: string | null = null) => ({
  content,
  derived_text: derived,
  metadata,
});

describe('extractField', () => {
  it('reads a metadata key and coerces it; an absent key is missing, a bad value a mismatch', () => {
    expect(extractField(doc(null, { n: '5' }), { type: 'int', source: { metadata: 'n' } })).toEqual({ kind: 'value', value: 5 });
    expect(extractField(doc(null, {}), { type: 'int', source: { metadata: 'n' } })).toEqual({ kind: 'missing' });
    expect(extractField(doc(null, { n: null }), { type: 'int', source: { metadata: 'n' } })).toEqual({ kind: 'missing' });
    expect(extractField(doc(null, { n: 'five' }), { type: 'int', source: { metadata: 'n' } })).toEqual({ kind: 'mismatch' });
  });

  it('does not read inherited properties as metadata keys', () => {
    expect(extractField(doc(null, {}), { type: 'string', source: { metadata: 'toString' } })).toEqual({ kind: 'missing' });
  });

  it('takes the first capture group of a regex source', () => {
    expect(extractField(doc('Invoice INV-0042 due'), { type: 'int', source: { regex: 'INV-(\\d+)' } })).toEqual({ kind: 'value', value: 42 });
  });

  it('takes the whole match when the pattern has no group', () => {
    expect(extractField(doc('call 555-1234 now'), { type: 'string', source: { regex: '\\d{3}-\\d{4}' } })).toEqual({ kind: 'value', value: '555-1234' });
  });

  it('is missing without a match or when the group did not take part, and a mismatch when the capture is not of the type', () => {
    expect(extractField(doc('nothing here'), { type: 'int', source: { regex: 'INV-(\\d+)' } })).toEqual({ kind: 'missing' });
    expect(extractField(doc('a'), { type: 'string', source: { regex: 'a|(b)' } })).toEqual({ kind: 'missing' });
    expect(extractField(doc('total: abc'), { type: 'float', source: { regex: 'total: (\\w+)' } })).toEqual({ kind: 'mismatch' });
  });

  it('reads the derived text of media and nothing when there is no text', () => {
    expect(extractField(doc(null, {}, 'a photo of 3 cats'), { type: 'int', source: { regex: '(\\d+) cats' } })).toEqual({ kind: 'value', value: 3 });
    expect(extractField(doc(null), { type: 'int', source: { regex: '(\\d+)' } })).toEqual({ kind: 'missing' });
  });

  it('collects every match, once each, for a string_list regex field', () => {
    expect(extractField(doc('#a #b #a #c'), { type: 'string_list', source: { regex: '#(\\w+)' } })).toEqual({ kind: 'value', value: ['a', 'b', 'c'] });
    expect(extractField(doc('none'), { type: 'string_list', source: { regex: '#(\\w+)' } })).toEqual({ kind: 'missing' });
  });

  it('datetime from text', () => {
    expect(extractField(doc('signed 2026-03-04 by X'), { type: 'datetime', source: { regex: 'signed (\\S+)' } })).toEqual({ kind: 'value', value: Date.UTC(2026, 2, 4) });
  });
});

describe('regexError', () => {
  it('accepts a valid pattern and explains an invalid one', () => {
    expect(regexError('a(b)c')).toBeNull();
    expect(regexError('a(b')).toMatch(/Invalid regular expression/);
  });

  it('refuses nested quantifiers, which can backtrack catastrophically on every write', () => {
    for (const p of ['(a+)+$', '(\\w*)*x', '(x{1,9}){2,}']) expect(regexError(p), p).toMatch(/catastrophic/);
    for (const p of ['(a+)b+', 'INV-(\\d+)', '(?:ab)+', '\\(a+\\)+']) expect(regexError(p), p).toBeNull();
  });
});
