import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isoTime } from '../../src/shared/iso-time.js';

const YEAR_10000_MS = 253_402_300_800_000;

describe('isoTime', () => {
  it('is Date#toISOString for every whole millisecond from 1970 to 9999, in any order', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: YEAR_10000_MS - 1 }), { minLength: 1, maxLength: 20 }),
        (times) => {
          for (const ms of times) expect(isoTime(ms)).toBe(new Date(ms).toISOString());
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('is Date#toISOString at the edges of a day and of its range', () => {
    const edges = [0, 1, 999, 1000, 86_399_999, 86_400_000, Date.parse('2026-12-31T23:59:59.999Z'), YEAR_10000_MS - 1];
    for (const ms of edges) expect(isoTime(ms)).toBe(new Date(ms).toISOString());
  });

  it('leaves what it does not cover to Date: before 1970, past 9999, fractions, and an invalid time throws as Date does', () => {
    for (const ms of [-1, -86_400_001, YEAR_10000_MS, 1.5, 1_700_000_000_000.25])
      expect(isoTime(ms)).toBe(new Date(ms).toISOString());
    expect(() => isoTime(Number.NaN)).toThrow(RangeError);
    expect(() => isoTime(8.64e15 + 1)).toThrow(RangeError);
  });
});
