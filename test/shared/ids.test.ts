import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSimulatedClock } from '../../src/shared/clock.js';
import { createIdFactory } from '../../src/shared/ids.js';

describe('createIdFactory', () => {
  it('orders ids made within one millisecond by creation', () => {
    const ids = createIdFactory(createSimulatedClock(1_700_000_000_000), 'ck-');
    const made = Array.from({ length: 5000 }, () => ids.next());
    expect([...made].sort()).toEqual(made);
    expect(new Set(made).size).toBe(made.length);
  });

  it('keeps order when the clock steps back, and after observing a newer stored id', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -5000, max: 5000 }), { minLength: 1, maxLength: 200 }), (steps) => {
        // A wall clock may step back (NTP, a VM restore); the simulated clock cannot, so use a plain one.
        let now = 1_700_000_000_000;
        const ids = createIdFactory({ now: () => now, setTimeout: () => 0, clearTimeout: () => {} });
        const made: string[] = [];
        for (const step of steps) {
          now += step;
          made.push(ids.next());
        }
        expect([...made].sort()).toEqual(made);
      }),
    );
    const later = createIdFactory(createSimulatedClock(1_800_000_000_000)).next();
    const restarted = createIdFactory(createSimulatedClock(1_700_000_000_000));
    restarted.observe(later);
    expect(restarted.next() > later).toBe(true);
  });
});
