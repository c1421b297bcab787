import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseTimestamp, formatTimestamp } from '../../src/domain/time.js';
import { FactBodySchema, FactListQuerySchema, EntityBodySchema, RelationshipBodySchema } from '../../src/http/schemas/memory.js';
import { isScalar } from '../../src/domain/scalar.js';

const runs = { numRuns: 2000 };

describe('fuzzing the parsers of user input', () => {
  it('parseTimestamp never throws and returns null or an instant that round-trips', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (text) => {
        const ms = parseTimestamp(text);
        if (ms !== null) expect(parseTimestamp(formatTimestamp(ms))).toBe(ms);
      }),
      runs,
    );
  });

  it('every timestamp at the edge years that is accepted formats back as RFC 3339 with a four-digit year', () => {
    const two = (n: number) => String(n).padStart(2, '0');
    fc.assert(
      fc.property(
        fc.constantFrom('0000-01-01', '0000-12-31', '9999-01-01', '9999-12-31'),
        fc.integer({ min: 0, max: 23 }),
        fc.integer({ min: 0, max: 59 }),
        fc.constantFrom('+', '-'),
        fc.integer({ min: 0, max: 23 }),
        fc.integer({ min: 0, max: 59 }),
        (date, hour, minute, sign, offHours, offMinutes) => {
          const ms = parseTimestamp(`${date}T${two(hour)}:${two(minute)}:59.999${sign}${two(offHours)}:${two(offMinutes)}`);
          if (ms !== null) expect(formatTimestamp(ms)).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
        },
      ),
      runs,
    );
  });

  it('every valid instant formats to a timestamp that parses back to itself', () => {
    fc.assert(
      fc.property(fc.date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true }), (d) => {
        expect(parseTimestamp(d.toISOString())).toBe(d.getTime());
      }),
      runs,
    );
  });

  it('body schemas never throw on arbitrary JSON, and whatever they accept obeys the scalar rule', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (random, value) => {
        for (const schema of [FactBodySchema, EntityBodySchema, RelationshipBodySchema]) {
          expect(() => schema.safeParse(random)).not.toThrow();
        }
        const fact = FactBodySchema.safeParse({ predicate: 'p', value });
        expect(fact.success).toBe(isScalar(value) && !(typeof value === 'string' && value.length > 16384));
        if (fact.success) expect(isScalar(fact.data.value)).toBe(true);
      }),
      runs,
    );
  });

  it('query schemas never throw on arbitrary string maps', () => {
    const keys = fc.constantFrom('entity_id', 'partition', 'limit', 'as_of', 'include_inactive', 'history', 'subject_type', 'subject_id', 'predicate', 'x');
    fc.assert(
      fc.property(fc.dictionary(keys, fc.string({ maxLength: 30 })), (query) => {
        const result = FactListQuerySchema.safeParse(query);
        if (result.success) {
          expect(result.data.entity_id.length).toBeGreaterThan(0);
          if (result.data.limit !== undefined) expect(result.data.limit).toBeLessThanOrEqual(1000);
        }
      }),
      runs,
    );
  });
});
