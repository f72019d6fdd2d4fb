import { describe, expect, it } from 'vitest';
import { adaptiveIntervalMs } from '../../src/heartbeat/adaptive-interval.js';

const base = { baseMs: 1000, minMs: 100, maxMs: 60_000, now: 10 * 60_000, idleSince: 10 * 60_000, arousal: 0 };

describe('adaptiveIntervalMs', () => {
  it('is the base interval for a calm agent that has just started', () => {
    expect(adaptiveIntervalMs({ ...base, lastUserActivityAt: null })).toBe(1000);
  });

  it('quickens to 0.3 of the base while a user was active in the last 2 minutes', () => {
    expect(adaptiveIntervalMs({ ...base, lastUserActivityAt: base.now - 60_000 })).toBe(300);
  });

  it('slows by 10 % per idle minute once the user has been away 2 minutes or more', () => {
    expect(adaptiveIntervalMs({ ...base, lastUserActivityAt: base.now - 5 * 60_000 })).toBe(1500);
  });

  it('counts idleness from the start when there was never a user', () => {
    expect(adaptiveIntervalMs({ ...base, lastUserActivityAt: null, idleSince: base.now - 10 * 60_000 })).toBe(2000);
  });

  it('quickens with arousal: × (1 − 0.5 × arousal)', () => {
    expect(adaptiveIntervalMs({ ...base, lastUserActivityAt: null, arousal: 1 })).toBe(500);
  });

  it('clamps to the configured minimum and maximum', () => {
    expect(adaptiveIntervalMs({ ...base, minMs: 400, lastUserActivityAt: base.now, arousal: 1 })).toBe(400);
    expect(
      adaptiveIntervalMs({ ...base, maxMs: 5000, lastUserActivityAt: null, idleSince: 0, now: 24 * 3_600_000 }),
    ).toBe(5000);
  });
});
