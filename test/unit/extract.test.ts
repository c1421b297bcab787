import { describe, expect, it } from 'vitest';
import { extractField } from '../../src/query/schema/extract.js';
import { MAX_PATTERN_INSTRUCTIONS, PATTERN_TEXT_WINDOW, patternError, patternText } from '../../src/query/schema/pattern.js';

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

describe('regex sources run on RE2 (linear time)', () => {
  const CATASTROPHIC = ['((a+))+$', '(a|a)*$', '(\\w+\\s?)*$', '^(a+|b)+$'];

  it.each(CATASTROPHIC)('accepts %s and reads a value like JavaScript would, from text that makes a backtracking engine explode', (pattern) => {
    expect(patternError(pattern)).toBeNull();
    // 100 a's then '!': a backtracking engine tries ~2^100 ways before failing; RE2 reads it once.
    expect(extractField(doc(`${'a'.repeat(100)}!`), { type: 'string', source: { regex: pattern } })).toEqual({ kind: 'missing' });
    const text = 'a'.repeat(20);
    const native = new RegExp(pattern, 'u').exec(text)!;
    expect(extractField(doc(text), { type: 'string', source: { regex: pattern } })).toEqual({ kind: 'value', value: native[1] });
  });

  it('keeps JavaScript semantics for the first capture group, group-less patterns and every match of a list', () => {
    for (const [pattern, text] of [['(x)?(\\d+)', 'ab 12'], ['n=(\\d+)|id=(\\w+)', 'id=q n=4'], ['\\p{L}+', '12 héllo'], ['(?i)inv-(\\d+)', 'INV-7']] as const) {
      const native = new RegExp(pattern.replace('(?i)', ''), pattern.startsWith('(?i)') ? 'iu' : 'u').exec(text)!;
      const expected = native.length > 1 ? native[1] : native[0];
      expect(extractField(doc(text), { type: 'string', source: { regex: pattern } }), pattern).toEqual(expected === undefined ? { kind: 'missing' } : { kind: 'value', value: expected });
    }
    expect(extractField(doc('x🙂y🙂'), { type: 'string_list', source: { regex: '🙂|y' } })).toEqual({ kind: 'value', value: ['🙂', 'y'] });
  });

  it('refuses what RE2 cannot compile and says which feature is missing', () => {
    expect(patternError('a(b')).toMatch(/missing closing \)/);
    expect(patternError('(a)\\1')).toMatch(/^backreferences/);
    expect(patternError('(?<n>a)\\k<n>')).toMatch(/^backreferences/);
    expect(patternError('a(?=b)')).toMatch(/^lookahead/);
    expect(patternError('a(?!b)')).toMatch(/^lookahead/);
    expect(patternError('(?<=a)b')).toMatch(/^lookbehind/);
    expect(patternError('\\u0041')).toMatch(/\\x\{41\}/);
    expect(patternError('a{1001}')).toMatch(/repeat count/);
  });

  it('refuses a pattern whose compiled program is too large, since matching time grows with it', () => {
    expect(patternError('(\\w{1,60})!')).toBeNull();
    expect(patternError('(\\w{1,1000})!')).toBe(
      `compiles to 2004 RE2 instructions, more than ${MAX_PATTERN_INSTRUCTIONS}; counted repetitions such as {1,1000} and long alternations make it large, shorten them`,
    );
  });

  it('reads the first PATTERN_TEXT_WINDOW code units of the text, never half a surrogate pair', () => {
    const pad = 'x'.repeat(PATTERN_TEXT_WINDOW - 8);
    expect(extractField(doc(`${pad}INV-42 `), { type: 'int', source: { regex: 'INV-(\\d+)' } })).toEqual({ kind: 'value', value: 42 });
    expect(extractField(doc(`${pad}xxxxxxxxINV-42`), { type: 'int', source: { regex: 'INV-(\\d+)' } })).toEqual({ kind: 'missing' });
    expect(extractField(doc(`${pad}xx#a #b #c`), { type: 'string_list', source: { regex: '#(\\w)' } })).toEqual({ kind: 'value', value: ['a', 'b'] });
    expect(patternText(`${'x'.repeat(PATTERN_TEXT_WINDOW - 1)}🙂`)).toBe('x'.repeat(PATTERN_TEXT_WINDOW - 1));
    expect(patternText(`${'x'.repeat(PATTERN_TEXT_WINDOW - 2)}🙂`)).toBe(`${'x'.repeat(PATTERN_TEXT_WINDOW - 2)}🙂`);
  });

  it('a stored pattern RE2 cannot compile (declared before RE2) reads as missing', () => {
    expect(extractField(doc('ab'), { type: 'string', source: { regex: 'a(?=b)' } }, null)).toEqual({ kind: 'missing' });
  });
});
