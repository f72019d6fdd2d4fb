// @ts-check
/**
 * The beats-per-minute figure, from the beats' own timestamps. Counting arrivals instead made the first ~10 s wrong:
 * the beats the feed replays on connect all "arrive" at once and read as a burst.
 */

/** How far back the rate looks, in ms of the agent's clock. */
export const RATE_WINDOW_MS = 10_000;

/**
 * Beats per minute over the window that ends at `now`, from the `at` times (ms since the epoch) of recent beats,
 * oldest first; null while fewer than two beats fall in the window (no rate to speak of yet, or the heart is idle).
 * @param {readonly number[]} beatTimes
 * @param {number} now
 * @returns {number | null}
 */
export function beatsPerMinute(beatTimes, now) {
  const from = now - RATE_WINDOW_MS;
  const inWindow = beatTimes.filter((at) => at >= from && at <= now);
  const first = inWindow[0];
  const last = inWindow[inWindow.length - 1];
  if (first === undefined || last === undefined || inWindow.length < 2 || last === first) return null;
  // Intervals between beats, not beats per window: right from the second beat, and not low while the window fills.
  return ((inWindow.length - 1) / (last - first)) * 60_000;
}

/**
 * Drops the times that fell out of the window ending at `now`, in place (the list only ever holds one window).
 * @param {number[]} beatTimes
 * @param {number} now
 */
export function forgetOldBeats(beatTimes, now) {
  while (beatTimes.length > 0 && (beatTimes[0] ?? now) < now - RATE_WINDOW_MS) beatTimes.shift();
}
