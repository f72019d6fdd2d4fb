import { describe, expect, it } from 'vitest';

/** beat-rate.js as the dashboard serves it: a plain browser module, typed by JSDoc under the dashboard's tsconfig. */
interface BeatRateModule {
  RATE_WINDOW_MS: number;
  beatsPerMinute: (beatTimes: readonly number[], now: number) => number | null;
  forgetOldBeats: (beatTimes: number[], now: number) => void;
}
// Imported by URL: the root TypeScript project reads no JavaScript, and the module's own checks run in the dashboard's.
const beatRateUrl = new URL('../../src/gateway/dashboard/beat-rate.js', import.meta.url).href;
const { beatsPerMinute, forgetOldBeats, RATE_WINDOW_MS } = (await import(beatRateUrl)) as BeatRateModule;

const beatsEvery = (intervalMs: number, count: number, lastAt: number): number[] =>
  Array.from({ length: count }, (_, i) => lastAt - (count - 1 - i) * intervalMs);

describe('the dashboard beats-per-minute figure', () => {
  it('is right at once when the feed replays a minute of beats on connect (they arrive together, their times do not)', () => {
    const now = Date.parse('2026-11-26T09:00:00Z');
    // 60 beats a second apart, all delivered in one burst: counting arrivals read this as 360 beats/min.
    const replayed = beatsEvery(1_000, 60, now - 200);
    forgetOldBeats(replayed, now);
    expect(replayed.length).toBeLessThanOrEqual(RATE_WINDOW_MS / 1_000 + 1);
    expect(beatsPerMinute(replayed, now)).toBeCloseTo(60, 6);
  });

  it('needs two beats in the window, and is not low while the window is still filling', () => {
    const now = 1_000_000;
    expect(beatsPerMinute([], now)).toBeNull();
    expect(beatsPerMinute([now - 100], now)).toBeNull();
    expect(beatsPerMinute([now - 2_100, now - 100], now)).toBeCloseTo(30, 6);
  });

  it('falls to nothing when the heart stops: beats older than the window no longer count', () => {
    const lastAt = 5_000_000;
    const times = beatsEvery(500, 20, lastAt);
    expect(beatsPerMinute(times, lastAt)).toBeCloseTo(120, 6);
    const later = lastAt + RATE_WINDOW_MS + 1;
    forgetOldBeats(times, later);
    expect(times).toEqual([]);
    expect(beatsPerMinute(times, later)).toBeNull();
  });
});
