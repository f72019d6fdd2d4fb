import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dayEndIn, dayKeyIn, nextMidnightIn } from '../../../src/actors/budget/budget-calendar.js';

describe('budget calendar', () => {
  it('names the local day in the zone, not in UTC', () => {
    const lateUtc = Date.parse('2026-03-01T23:30:00Z');
    expect(dayKeyIn('UTC', lateUtc)).toBe('2026-03-01');
    expect(dayKeyIn('Europe/Berlin', lateUtc)).toBe('2026-03-02');
    expect(dayKeyIn('America/Los_Angeles', lateUtc)).toBe('2026-03-01');
  });

  it('finds Berlin midnight on an ordinary day (UTC+1 in winter)', () => {
    expect(new Date(nextMidnightIn('Europe/Berlin', Date.parse('2026-01-15T12:00:00Z'))).toISOString()).toBe(
      '2026-01-15T23:00:00.000Z',
    );
  });

  it('finds Berlin midnight after the spring-forward day, when the day has 23 hours', () => {
    // 2026-03-29: clocks jump 02:00 → 03:00 CET → CEST; the next midnight is 00:00 CEST = 22:00 UTC.
    expect(new Date(nextMidnightIn('Europe/Berlin', Date.parse('2026-03-29T00:30:00Z'))).toISOString()).toBe(
      '2026-03-29T22:00:00.000Z',
    );
  });

  it('finds Berlin midnight after the fall-back day, when the day has 25 hours', () => {
    // 2026-10-25: 03:00 CEST → 02:00 CET; the next midnight is 00:00 CET = 23:00 UTC.
    expect(new Date(nextMidnightIn('Europe/Berlin', Date.parse('2026-10-25T00:30:00Z'))).toISOString()).toBe(
      '2026-10-25T23:00:00.000Z',
    );
  });

  it('handles a zone where DST skips midnight itself (the day starts at 01:00)', () => {
    // America/Santiago springs forward at 24:00 → 01:00 on 2026-09-06.
    const next = nextMidnightIn('America/Santiago', Date.parse('2026-09-05T12:00:00Z'));
    expect(dayKeyIn('America/Santiago', next)).toBe('2026-09-06');
    expect(dayKeyIn('America/Santiago', next - 1)).toBe('2026-09-05');
  });

  it('always returns the first millisecond of a later local day, within 26 hours', () => {
    const zones = [
      'UTC',
      'Europe/Berlin',
      'America/New_York',
      'Australia/Lord_Howe',
      'Asia/Kathmandu',
      'Pacific/Chatham',
    ];
    fc.assert(
      fc.property(
        fc.constantFrom(...zones),
        fc.integer({ min: Date.parse('2020-01-01'), max: Date.parse('2035-01-01') }),
        (zone, at) => {
          const next = nextMidnightIn(zone, at);
          expect(next).toBeGreaterThan(at);
          expect(next - at).toBeLessThanOrEqual(26 * 3_600_000);
          expect(dayKeyIn(zone, next) > dayKeyIn(zone, at)).toBe(true);
          expect(dayKeyIn(zone, next - 1)).toBe(dayKeyIn(zone, at));
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('dayEndIn', () => {
  it('agrees with nextMidnightIn for any instant of the day, in any zone', () => {
    const zones = [
      'UTC',
      'Europe/Berlin',
      'Pacific/Kiritimati',
      'Pacific/Pago_Pago',
      'America/Santiago',
      'Asia/Kathmandu',
    ];
    fc.assert(
      fc.property(
        fc.constantFrom(...zones),
        fc.integer({ min: Date.parse('2020-01-01'), max: Date.parse('2035-01-01') }),
        (zone, at) => {
          expect(dayEndIn(zone, dayKeyIn(zone, at))).toBe(nextMidnightIn(zone, at));
        },
      ),
      { numRuns: 200 },
    );
  });
});
