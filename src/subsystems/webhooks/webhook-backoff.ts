/**
 * The retry schedule of a failing endpoint: exponential backoff with jitter, from about a second after the first
 * failure to at most an hour apart, so a receiver that is down for a day is tried some forty times, not thousands.
 */

/** The first retry comes within this long (before jitter). */
export const DEFAULT_RETRY_BASE_MS = 1_000;
/** Retries are never further apart than this. */
export const DEFAULT_RETRY_CAP_MS = 3_600_000;

/** The backoff's shape; tests and the simulator may shorten it. */
export interface BackoffSettings {
  baseMs: number;
  capMs: number;
}

/** The default schedule: ~1 s, 2 s, 4 s … doubling to one hour. */
export const DEFAULT_BACKOFF: BackoffSettings = { baseMs: DEFAULT_RETRY_BASE_MS, capMs: DEFAULT_RETRY_CAP_MS };

/**
 * How long to wait after the `failures`-th failed attempt in a row: `min(cap, base × 2^(failures−1))`, jittered down to
 * between half and all of it by `random()` (in [0, 1)), so endpoints that failed together do not retry in lockstep.
 */
export function retryDelayMs(
  failures: number,
  random: () => number,
  settings: BackoffSettings = DEFAULT_BACKOFF,
): number {
  // 2^40 already dwarfs any cap; the exponent is bounded so the product stays a finite number.
  const exponent = Math.min(Math.max(failures, 1) - 1, 40);
  const ceiling = Math.min(settings.capMs, settings.baseMs * 2 ** exponent);
  const jitter = 0.5 + 0.5 * Math.min(Math.max(random(), 0), 1);
  return Math.max(1, Math.round(ceiling * jitter));
}
